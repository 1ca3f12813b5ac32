import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { auditTransactionCommand } from '../src/modules/transactions/audit/audit-transaction.command.js';
import { AGREES } from '../src/modules/transactions/audit/transaction-audit.format.js';
import { ensureBuiltService } from './support/built-service.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;
let userId: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp({ env: { LINK_TOKEN_KEY: randomBytes(32).toString('base64') } });
  ({ key, userId, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

/** `ledgerline audit transaction <id> [--json]` as the command line runs it, its output captured. */
async function audit(id: string | undefined, json = false): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = { log: (line: string) => stdout.push(line), error: (line: string) => stderr.push(line) };
  const code = await auditTransactionCommand({ db: t.runtime.database.db, store: t.runtime.eventStore }, id, { json }, out);
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

async function writtenThroughTheApi(): Promise<{ live: string; deleted: string }> {
  const tag = (await t.as(key).post('/v1/tags', { name: 'Work', color: 'green' }).expect(201)).body as { id: string };
  const transaction = async () =>
    ((await t.as(key).post('/v1/transactions', { accountId, amount: -12.5, date: '2026-11-20', name: 'Corner Cafe', notes: 'with Sam', location: { city: 'Lisbon' } }).expect(201)).body as { id: string }).id;
  const [live, deleted] = [await transaction(), await transaction()];
  for (const id of [live, deleted]) {
    await t.as(key).patch(`/v1/transactions/${id}`, { amount: -13, merchantName: 'Corner Cafe Ltd' }).set('X-Correlation-Id', 'expense-report-12').expect(200);
    await t.as(key).put(`/v1/transactions/${id}/tags`, { tagIds: [tag.id] }).expect(200);
    await t.as(key).patch(`/v1/transactions/${id}`, { notes: null, name: 'Cafe' }).expect(200);
  }
  await t.as(key).delete(`/v1/transactions/${deleted}`).expect(200);
  return { live, deleted };
}

/** A linked sandbox item's user and one of its pending transactions that a posted one replaced (the first sync brings some). */
let linked: Promise<{ userId: string; key: string; email: string; pending: string; posted: string }> | null = null;
function replacedPending() {
  linked ??= (async () => {
    const owner = await t.newUser();
    const { publicToken } = (await t.as(owner.key).post('/v1/sandbox/public-token', { institutionId: 'ins_100002' }).expect(200)).body;
    await t.as(owner.key).post('/v1/link/items', { publicToken }).expect(201);
    await t.settle();
    const { rows } = await sql<{ stream_id: string; by: string }>`
      SELECT stream_id, data->>'byTransactionId' AS by FROM events
       WHERE type = 'TransactionReplaced' AND metadata->>'userId' = ${owner.userId} ORDER BY global_position LIMIT 1`.execute(t.runtime.database.db);
    expect(rows).toHaveLength(1);
    const email = (await t.runtime.database.db.selectFrom('users').select('email').where('id', '=', owner.userId).executeTakeFirstOrThrow()).email as string;
    return { userId: owner.userId, key: owner.key, email, pending: rows[0]!.stream_id.replace('transaction-', ''), posted: rows[0]!.by };
  })();
  return linked;
}

describe('ledgerline audit transaction', () => {
  let ids: { live: string; deleted: string };
  beforeAll(async () => {
    ids = await writtenThroughTheApi();
  });

  it('lists every event with its ids and field changes, and says the read models agree (exit 0)', async () => {
    const result = await audit(ids.live);
    console.log(`ledgerline audit transaction ${ids.live}  (exit ${result.code})\n${result.stdout}`);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith(AGREES)).toBe(true);
    expect(result.stdout).toContain('TransactionCreated');
    expect(result.stdout).toMatch(/TransactionEdited .*\n {4}actor user · request [\w-]+ · correlation expense-report-12 · causation [\w-]+\n {4}merchantName {2}null → "Corner Cafe Ltd"\n {4}amount {8}-12.5 → -13/);
    expect(result.stdout).toContain('tags  [] → [');

    const json = await audit(ids.live, true);
    console.log(`ledgerline audit transaction ${ids.live} --json  (exit ${json.code})\n${json.stdout}`);
    const document = JSON.parse(json.stdout);
    expect(json.code).toBe(0);
    expect(document).toMatchObject({ transactionId: ids.live, status: 'live', agrees: true, disagreements: [], verdict: AGREES });
    expect(document.events.map((event: { type: string }) => event.type)).toEqual(['TransactionCreated', 'TransactionEdited', 'TagApplied', 'TransactionEdited']);
    expect(document.events[0].changes[0]).toEqual({ field: 'name', kind: 'created', after: 'Corner Cafe' });
  });

  it('audits a deleted transaction: no row expected, its departure in the activity', async () => {
    const result = await audit(ids.deleted, true);
    const document = JSON.parse(result.stdout);
    expect(result.code).toBe(0);
    expect(document.status).toBe('deleted');
    expect(document.events.at(-1)).toMatchObject({ type: 'TransactionDeleted', changes: expect.arrayContaining([{ field: 'amount', kind: 'deleted', before: -13 }]) });
  });

  it('names the field of a read-model row changed behind its back (exit 1)', async () => {
    await sql`UPDATE transactions SET amount = -99, notes = 'tampered' WHERE id = ${ids.live}`.execute(t.runtime.database.db);
    const result = await audit(ids.live);
    console.log(result.stdout.split('\n').slice(-3).join('\n'));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Read model DISAGREES with the event stream (2):');
    expect(result.stdout).toContain('  transactions.amount: stream -13, read model -99');
    expect(result.stdout).toContain('  transactions.notes: stream "with Sam", read model "tampered"');
    await sql`UPDATE transactions SET amount = -13, notes = 'with Sam' WHERE id = ${ids.live}`.execute(t.runtime.database.db);
    expect((await audit(ids.live)).code).toBe(0);
  });

  it('names an activity row changed or removed behind its back (exit 1)', async () => {
    const row = await t.runtime.database.db.selectFrom('transaction_activity').select('id').where('transaction_id', '=', ids.deleted).where('kind', '=', 'deleted').where('field', '=', 'amount').executeTakeFirstOrThrow();
    await sql`UPDATE transaction_activity SET old_value = '-12.5'::jsonb WHERE id = ${row.id}`.execute(t.runtime.database.db);
    const changed = JSON.parse((await audit(ids.deleted, true)).stdout);
    expect(changed.disagreements).toEqual([{ where: `transaction_activity[${row.id}].oldValue`, stream: '-13', readModel: '-12.5' }]);
    await sql`DELETE FROM transaction_activity WHERE id = ${row.id}`.execute(t.runtime.database.db);
    const removed = await audit(ids.deleted);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toContain(`  transaction_activity[${row.id}]: stream deleted amount, read model no row`);
  });

  it('names the user (with their email), the tags and the categories beside their ids, in text and JSON', async () => {
    const email = (await t.runtime.database.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email as string;
    const text = await audit(ids.live);
    expect(text.stdout.split('\n')[0]).toBe(`Transaction ${ids.live} of user ${userId} (${email}): stream transaction-${ids.live}, 4 events`);
    expect(text.stdout).toMatch(/ {4}tags {2}\[\] → \["[0-9a-f-]{36}" \(Work\)\]/);
    const document = JSON.parse((await audit(ids.live, true)).stdout);
    expect(document.user).toEqual({ id: userId, email, name: null });
    expect(document.events[2].changes).toEqual([{ field: 'tags', kind: 'edited', before: [], after: [expect.any(String)], beforeName: [], afterName: ['Work'] }]);

    const { categories } = (await t.as(key).get('/v1/categories').expect(200)).body as { categories: Array<{ id: string; name: string }> };
    const categorised = (await t.as(key).post('/v1/transactions', { accountId, amount: -4, date: '2026-11-21', name: 'Bus', categoryId: categories[3]!.id }).expect(201)).body.id as string;
    const named = await audit(categorised);
    expect(named.stdout).toContain(`    category  — → "${categories[3]!.id}" (${categories[3]!.name})`);
    expect(JSON.parse((await audit(categorised, true)).stdout).events[0].changes).toContainEqual({ field: 'category', kind: 'created', after: categories[3]!.id, afterName: categories[3]!.name });
  });

  it('shows, for a pending transaction its posted one replaced, the id of the one that replaced it (byTransactionId), and names the provider’s category of the posted one', async () => {
    const replaced = await replacedPending();
    const text = await audit(replaced.pending);
    console.log(`ledgerline audit transaction ${replaced.pending}  (exit ${text.code})\n${text.stdout}`);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`    replaced by transaction ${replaced.posted} (its posted transaction)`);
    const document = JSON.parse((await audit(replaced.pending, true)).stdout);
    expect(document.events[0].type).toBe('TransactionImported');
    expect(document.events.at(-1)).toMatchObject({ type: 'TransactionReplaced', byTransactionId: replaced.posted });
    expect(document.status).toBe('replaced');
    const posted = JSON.parse((await audit(replaced.posted, true)).stdout);
    expect(posted.events[0]).toMatchObject({ type: 'TransactionImported', replacesTransactionId: replaced.pending });
    expect((await audit(replaced.posted)).stdout).toContain(`    replaces pending transaction ${replaced.pending}`);
    // An imported transaction's category is the provider's, named as the user's taxonomy names it.
    const categorised = await t.runtime.database.db.selectFrom('transactions').select('id').where('user_id', '=', replaced.userId).where('category_id', 'is not', null).limit(1).executeTakeFirstOrThrow();
    const shown = (await t.as(replaced.key).get(`/v1/transactions/${categorised.id}`).expect(200)).body as { category: { id: string; name: string } };
    const imported = JSON.parse((await audit(categorised.id, true)).stdout);
    expect(imported.events[0].changes).toContainEqual({ field: 'category', kind: 'created', after: shown.category.id, afterName: shown.category.name });
  }, 120_000);

  it('says so for an unknown id (exit 1) and refuses what is not an id (exit 2)', async () => {
    const unknown = await audit('00000000-0000-4000-8000-000000000000');
    expect([unknown.code, unknown.stderr]).toEqual([1, 'No transaction 00000000-0000-4000-8000-000000000000: its stream has no events.']);
    expect((await audit('not-an-id')).code).toBe(2);
    expect((await audit(undefined)).code).toBe(2);
  });

  // The command line itself, as built (built here when dist is older than the sources, or AUDIT_CLI=<path to cli.js>): its parsing, exit code and output.
  it('runs as `ledgerline audit transaction <id>` from the command line', async () => {
    const cli = process.env.AUDIT_CLI ?? path.join(path.dirname(await ensureBuiltService()), 'cli.js');
    const env = { ...process.env, DATABASE_URL: t.runtime.config.databaseUrl as string, LOG_LEVEL: 'warn' };
    const run = (args: string[]) => promisify(execFile)(process.execPath, [cli, ...args], { env }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout + error.stderr }),
    );
    const text = await run(['audit', 'transaction', ids.live]);
    console.log(`$ ledgerline audit transaction ${ids.live}; echo $?\n${text.stdout}${text.code}`);
    expect(text.code).toBe(0);
    const json = await run(['audit', 'transaction', ids.live, '--json']);
    console.log(`$ ledgerline audit transaction ${ids.live} --json\n${json.stdout}`);
    expect(JSON.parse(json.stdout).agrees).toBe(true);
    await sql`UPDATE transactions SET amount = -99 WHERE id = ${ids.live}`.execute(t.runtime.database.db);
    // An imported transaction retired by its posted one: the id of the one that replaced it, and the names beside the ids.
    const replaced = await replacedPending();
    const pendingText = await run(['audit', 'transaction', replaced.pending]);
    console.log(`$ ledgerline audit transaction ${replaced.pending}\n${pendingText.stdout}`);
    expect(pendingText.code).toBe(0);
    expect(pendingText.stdout).toContain(`    replaced by transaction ${replaced.posted} (its posted transaction)`);
    expect(pendingText.stdout).toMatch(new RegExp(`^Transaction ${replaced.pending} of user ${replaced.userId} \\(${replaced.email.replace(/[.+]/g, '\\$&')}\\)`));
    const pendingJson = JSON.parse((await run(['audit', 'transaction', replaced.pending, '--json'])).stdout);
    expect(pendingJson.events.at(-1)).toMatchObject({ type: 'TransactionReplaced', byTransactionId: replaced.posted });
    expect(pendingJson.user).toEqual({ id: replaced.userId, email: replaced.email, name: null });
    const tampered = await run(['audit', 'transaction', ids.live]);
    console.log(`$ ledgerline audit transaction ${ids.live}; echo $?   # after UPDATE transactions SET amount = -99\n…\n${tampered.stdout.split('\n').slice(-3).join('\n')}${tampered.code}`);
    expect(tampered.code).toBe(1);
    await sql`UPDATE transactions SET amount = -13 WHERE id = ${ids.live}`.execute(t.runtime.database.db);
    expect((await run(['audit', 'transaction'])).code).toBe(2);
  }, 360_000);
});
