import { createHash, randomInt, randomUUID } from 'node:crypto';
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { type Clock, isoDate } from '../../../core/clock.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { BankLinkError, type BankLinkProvider, type BankLinkWebhookCode, type ExchangedItem, type ItemStatus, type LinkAccount } from '../bank-link.port.js';
import {
  checkTransactionCount,
  createSandboxBank,
  type FiredWebhook,
  type PublicTokenRequest,
  parseWebhookBody,
  SANDBOX_INSTITUTIONS,
  type SandboxBank,
  type SandboxHistory,
  signWebhook,
  verifyWebhookSignature,
  type WebhookSecret,
} from '../sandbox-bank/index.js';
import { RecentItems } from '../sandbox-bank/recent-items.cache.js';
import { sandboxWebhook, statusAfter } from '../sandbox-bank/sandbox-webhook-rules.js';

/** The port plus the sandbox's controls, over state every instance shares. */
export interface PersistentSandboxBank extends BankLinkProvider {
  /**
   * Not over HTTP: `transactionCount` (the item's size on its link day) is for benchmarks and tests.
   * With a `linkToken` issued to reconnect an item, the public token is that item's (institution and
   * size are the item's): its exchange re-authenticates the item instead of making a new one.
   */
  createPublicToken(request: PublicTokenRequest): Promise<string>;
  fireWebhook(request: { itemId: string; code: BankLinkWebhookCode; at?: Date }): Promise<FiredWebhook>;
  itemHistory(itemId: string): Promise<SandboxHistory>;
}

export interface PersistentSandboxBankOptions {
  /** Also the sandbox's today: each item shows what its ledger holds up to the clock's UTC day. */
  readonly clock: Clock;
  /** Days each new item lives on after its link day; SANDBOX_HORIZON_DAYS unless a test says otherwise. */
  readonly horizonDays?: number;
  /** What the sandbox signs its webhooks with and the receiver verifies them with: every instance on one database needs the same. */
  readonly webhookSecret: WebhookSecret;
  readonly publicTokenTtlMs?: number;
}

const PUBLIC_TOKEN_TTL_MS = 30 * 60_000;
const LINK_TOKEN_TTL_MS = 4 * 3_600_000;
/**
 * An item lives on for 400 days after it is linked: over a year of new transactions, each day's
 * on its day (a full annual cycle, so even the yearly renewal comes round again), for about half
 * as much again as the two years of history to generate. Past it the item stands still.
 */
export const SANDBOX_HORIZON_DAYS = 400;
/**
 * Regenerating an item costs tens of milliseconds (a 100,000-transaction one about half a second):
 * keep the recently used ones, within a budget of planned transactions (about 150 bytes each).
 */
const CACHED_ITEMS = 32;
const CACHED_TRANSACTIONS = 600_000;

interface OpenedItem {
  readonly bank: SandboxBank;
  readonly innerAccessToken: string;
  readonly exchanged: ExchangedItem;
}

type ItemRow = Selectable<Database['sandbox_bank_items']>;

/** What regenerates an item byte for byte, as the item and public-token rows keep it. */
interface ItemGeneration {
  readonly item_seed: string;
  readonly institution_id: string;
  readonly as_of: string;
  readonly transaction_count: number | null;
  readonly horizon_days: number | null;
}

const hashOf = (token: string): Buffer => createHash('sha256').update(token).digest();

/** The user of the private one-item sandbox an item is regenerated in: nobody outside it sees its tokens. */
const GENERATOR_USER = 'sandbox-generator';

/**
 * The in-memory sandbox made durable without rewriting it. Each item is its own one-item sandbox
 * generated from a seed stored in PostgreSQL, so any instance regenerates the same bank
 * byte for byte; what changes over time (link and public tokens issued and used, the item's status,
 * its access token after a reconnect, the accounts the bank opened since, removal) is in
 * PostgreSQL. Tokens are random and stored only as SHA-256 hashes: the sandbox only compares them.
 */
export function createPersistentSandboxBank(db: Kysely<Database>, options: PersistentSandboxBankOptions): PersistentSandboxBank {
  const secret = options.webhookSecret;
  const publicTokenTtlMs = options.publicTokenTtlMs ?? PUBLIC_TOKEN_TTL_MS;
  const horizonDays = options.horizonDays ?? SANDBOX_HORIZON_DAYS;
  const opened = new RecentItems<Promise<OpenedItem>>(CACHED_ITEMS, CACHED_TRANSACTIONS);

  async function open(row: ItemGeneration): Promise<OpenedItem> {
    // The clock is the inner sandbox's today: what it shows of the item's horizon.
    const bank = createSandboxBank({ seed: Number(row.item_seed), asOf: row.as_of, horizonDays: row.horizon_days ?? 0, clock: options.clock, webhookSecret: secret });
    const request = row.transaction_count === null ? { institutionId: row.institution_id } : { institutionId: row.institution_id, transactionCount: row.transaction_count };
    const publicToken = bank.createPublicToken({ ...request, userId: GENERATOR_USER });
    const exchanged = await bank.exchangePublicToken({ publicToken, userId: GENERATOR_USER });
    return { bank, innerAccessToken: exchanged.accessToken, exchanged };
  }

  /** Concurrent pages of an item not cached yet share one generation; its weight is set once it is done. */
  async function openCached(row: ItemGeneration & { item_id: string }): Promise<OpenedItem> {
    const cached = opened.get(row.item_id);
    if (cached) return cached;
    const opening = open(row);
    opened.set(row.item_id, opening);
    try {
      const item = await opening;
      if (opened.get(row.item_id) === opening) opened.set(row.item_id, opening, item.bank.plannedTransactions(item.exchanged.itemId));
      return item;
    } catch (error) {
      opened.deleteIf(row.item_id, opening);
      throw error;
    }
  }

  async function itemByAccessToken(accessToken: string) {
    const row = await db.selectFrom('sandbox_bank_items').selectAll().where('access_token_hash', '=', hashOf(accessToken)).where('removed_at', 'is', null).executeTakeFirst();
    if (!row) throw new BankLinkError('INVALID_ACCESS_TOKEN', 'The access token is not one of this sandbox’s items');
    return row;
  }

  /** The item's accounts on the clock's day: the generated ones, then those reconnects have added. */
  async function accountsOf(row: ItemRow): Promise<LinkAccount[]> {
    const item = await openCached(row);
    const accounts = await item.bank.getAccounts(item.innerAccessToken);
    if (row.extra_accounts === 0) return [...accounts];
    return [...accounts, ...item.bank.newlyOpenedAccounts(item.exchanged.itemId, row.extra_accounts).map(({ openingBalance: _opening, ...account }): LinkAccount => account)];
  }

  async function itemById(itemId: string) {
    const row = await db.selectFrom('sandbox_bank_items').selectAll().where('item_id', '=', itemId).where('removed_at', 'is', null).executeTakeFirst();
    if (!row) throw new BankLinkError('ITEM_NOT_FOUND', `No sandbox item ${itemId}`);
    return row;
  }

  return {
    async createLinkToken({ userId, reconnectItemId }) {
      if (reconnectItemId !== undefined) await itemById(reconnectItemId);
      const linkToken = `link-sandbox-${randomUUID()}`;
      const now = options.clock.now();
      const expiresAt = new Date(now.getTime() + LINK_TOKEN_TTL_MS);
      await db
        .insertInto('sandbox_bank_link_tokens')
        .values({ token_hash: hashOf(linkToken), user_id: userId, reconnect_item_id: reconnectItemId ?? null, created_at: now, expires_at: expiresAt })
        .execute();
      return { linkToken, expiration: expiresAt.toISOString() };
    },

    async createPublicToken(request) {
      const { userId } = request;
      if (request.linkToken !== undefined) {
        const link = await db
          .selectFrom('sandbox_bank_link_tokens')
          .select('reconnect_item_id')
          .where('token_hash', '=', hashOf(request.linkToken))
          .where('user_id', '=', userId)
          .where('expires_at', '>', options.clock.now())
          .executeTakeFirst();
        if (!link) throw new BankLinkError('INVALID_LINK_TOKEN', 'The link token is unknown, expired or another user’s');
        if (link.reconnect_item_id !== null) return reconnectPublicToken(userId, link.reconnect_item_id);
      }
      checkTransactionCount(request.transactionCount);
      const itemSeed = randomInt(1, 2 ** 31 - 1);
      const institutionId = request.institutionId ?? SANDBOX_INSTITUTIONS[itemSeed % SANDBOX_INSTITUTIONS.length].id;
      if (!SANDBOX_INSTITUTIONS.some((institution) => institution.id === institutionId)) throw new BankLinkError('INSTITUTION_NOT_FOUND', `No sandbox institution ${institutionId}`);
      return issuePublicToken({
        user_id: userId,
        institution_id: institutionId,
        item_seed: String(itemSeed),
        as_of: isoDate(options.clock.now()),
        transaction_count: request.transactionCount ?? null,
        horizon_days: horizonDays,
        reconnect_item_id: null,
      });
    },

    async exchangePublicToken({ publicToken, userId }) {
      const now = options.clock.now();
      return db.transaction().execute(async (trx) => {
        // One UPDATE both checks and spends the token: two exchanges of it cannot both win, and
        // another user's exchange spends nothing (before this, it rotated the owner's access token).
        const grant = await trx
          .updateTable('sandbox_bank_public_tokens')
          .set({ used_at: now })
          .where('token_hash', '=', hashOf(publicToken))
          .where('user_id', '=', userId)
          .where('used_at', 'is', null)
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst();
        if (!grant) throw new BankLinkError('INVALID_PUBLIC_TOKEN', 'The public token is unknown, expired, another user’s or was already exchanged');
        if (grant.reconnect_item_id !== null) return reconnect(trx, grant.reconnect_item_id);
        const item = await open(grant);
        const accessToken = `access-sandbox-${randomUUID()}`;
        await trx
          .insertInto('sandbox_bank_items')
          .values({
            item_id: item.exchanged.itemId,
            access_token_hash: hashOf(accessToken),
            item_seed: grant.item_seed,
            institution_id: grant.institution_id,
            as_of: grant.as_of,
            transaction_count: grant.transaction_count,
            horizon_days: grant.horizon_days,
            status: JSON.stringify({ status: 'ok' } satisfies ItemStatus),
            created_at: now,
            removed_at: null,
          })
          .execute();
        opened.set(item.exchanged.itemId, Promise.resolve(item), item.bank.plannedTransactions(item.exchanged.itemId));
        return { ...item.exchanged, accessToken };
      });
    },

    async syncTransactions({ accessToken, cursor, count }) {
      const row = await itemByAccessToken(accessToken);
      if ((row.status as ItemStatus).status === 'login_required') throw new BankLinkError('ITEM_LOGIN_REQUIRED', 'A user login is required to update this item');
      const item = await openCached(row);
      return item.bank.syncTransactions({ accessToken: item.innerAccessToken, cursor, count });
    },

    async getItemStatus(accessToken) {
      return (await itemByAccessToken(accessToken)).status as ItemStatus;
    },

    async removeItem(accessToken) {
      const row = await itemByAccessToken(accessToken);
      await db.updateTable('sandbox_bank_items').set({ removed_at: options.clock.now() }).where('item_id', '=', row.item_id).execute();
      opened.delete(row.item_id);
    },

    async getAccounts(accessToken) {
      return accountsOf(await itemByAccessToken(accessToken));
    },

    verifyWebhook: async (rawBody, headers, now) => verifyWebhookSignature(rawBody, headers, secret, now),
    parseWebhook: (rawBody) => parseWebhookBody(rawBody),

    async fireWebhook({ itemId, code, at }) {
      const firedAt = at ?? options.clock.now();
      const webhook = sandboxWebhook(itemId, code, firedAt);
      await db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom('sandbox_bank_items').select('status').where('item_id', '=', itemId).where('removed_at', 'is', null).forUpdate().executeTakeFirst();
        if (!row) throw new BankLinkError('ITEM_NOT_FOUND', `No sandbox item ${itemId}`);
        const status = statusAfter(row.status as ItemStatus, webhook);
        // NEW_ACCOUNTS_AVAILABLE: the bank opened an account the item does not share until a reconnect adds it.
        const opened = webhook.code === 'NEW_ACCOUNTS_AVAILABLE' ? { new_accounts_available: true } : {};
        await trx.updateTable('sandbox_bank_items').set({ status: JSON.stringify(status), ...opened }).where('item_id', '=', itemId).execute();
      });
      return { ...signWebhook(webhook, secret, firedAt), webhook };
    },

    async itemHistory(itemId) {
      const row = await itemById(itemId);
      const { bank } = await openCached(row);
      const history = bank.itemHistory(itemId);
      return row.extra_accounts === 0 ? history : { ...history, accounts: [...history.accounts, ...bank.newlyOpenedAccounts(itemId, row.extra_accounts)] };
    },
  };

  /** A public token for an existing item, as the link flow in update mode gives: the item's own institution and generation. */
  async function reconnectPublicToken(userId: string, itemId: string): Promise<string> {
    const item = await db.selectFrom('sandbox_bank_items').selectAll().where('item_id', '=', itemId).where('removed_at', 'is', null).executeTakeFirst();
    if (!item) throw new BankLinkError('INVALID_LINK_TOKEN', 'The item the link token reconnects has been removed');
    const { institution_id, item_seed, as_of, transaction_count, horizon_days } = item;
    return issuePublicToken({ user_id: userId, institution_id, item_seed, as_of, transaction_count, horizon_days, reconnect_item_id: itemId });
  }

  /** A single-use public token for the item the grant describes (a new one, or the one it reconnects). */
  async function issuePublicToken(grant: Pick<Insertable<Database['sandbox_bank_public_tokens']>, 'user_id' | 'institution_id' | 'item_seed' | 'as_of' | 'transaction_count' | 'horizon_days' | 'reconnect_item_id'>): Promise<string> {
    const publicToken = `public-sandbox-${randomUUID()}`;
    const now = options.clock.now();
    await db
      .insertInto('sandbox_bank_public_tokens')
      .values({ ...grant, token_hash: hashOf(publicToken), created_at: now, expires_at: new Date(now.getTime() + publicTokenTtlMs), used_at: null })
      .execute();
    return publicToken;
  }

  /**
   * The exchange of a reconnect's public token, inside its transaction: one UPDATE replaces the
   * item's access token (the old one stops working), sets its status back to ok (the user logged in
   * again: a login required, an error, a pending disconnect or expiration are over) and shares the
   * account the bank opened since NEW_ACCOUNTS_AVAILABLE, if any.
   */
  async function reconnect(trx: Kysely<Database>, itemId: string): Promise<ExchangedItem> {
    const accessToken = `access-sandbox-${randomUUID()}`;
    const row = await trx
      .updateTable('sandbox_bank_items')
      .set({
        access_token_hash: hashOf(accessToken),
        status: JSON.stringify({ status: 'ok' } satisfies ItemStatus),
        // Both read the row as it was: the flag set adds one account, and is cleared.
        extra_accounts: sql<number>`extra_accounts + new_accounts_available::int`,
        new_accounts_available: false,
      })
      .where('item_id', '=', itemId)
      .where('removed_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new BankLinkError('INVALID_PUBLIC_TOKEN', 'The item the public token reconnects has been removed');
    const item = await openCached(row);
    return { itemId, accessToken, institution: item.exchanged.institution, accounts: await accountsOf(row) };
  }
}
