import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import { specification } from '../../../core/decider-specification.test-support.js';
import type { LinkItemEvent, LinkItemLinked } from './link-item.js';
import { linkItemDecider } from './link-item.decider.js';

const linkItemUuid = '11111111-1111-5111-8111-111111111111';
const linked: LinkItemLinked = {
  type: 'LinkItemLinked',
  data: {
    linkItemUuid,
    linkItemId: 'item-sandbox-1',
    provider: 'sandbox',
    institution: { id: 'ins_100001', name: 'Harbor Point Bank', logo: null, url: null },
    accounts: [
      {
        accountId: '22222222-2222-5222-8222-222222222222',
        linkAccountId: 'acc-1',
        name: 'Checking',
        officialName: null,
        mask: '0001',
        providerType: 'depository',
        providerSubtype: 'checking',
        type: 'bank',
        subtype: 'checking',
        currency: 'USD',
        balances: { current: '1200.5', available: '1100', limit: null },
      },
    ],
    availableProducts: ['balance'],
    billedProducts: ['transactions'],
  },
};
const loginError = { errorCode: 'ITEM_LOGIN_REQUIRED', errorMessage: 'log in again' };
const spec = specification(linkItemDecider);
const notFound = (error: unknown) => expect(error).toBeInstanceOf(NotFoundError);

describe('link item decider', () => {
  it('links an item; exchanging it again reconnects it, adding the accounts it did not have; a disconnected item is refused', () => {
    spec.given([]).when({ type: 'LinkItem', data: linked.data }).then([linked]);
    const newSavings = { ...linked.data.accounts[0], accountId: '33333333-3333-5333-8333-333333333333', linkAccountId: 'acc-2', name: 'New Savings', subtype: 'savings' };
    const again = { ...linked.data, accounts: [...linked.data.accounts, newSavings] };
    const { linkItemId, institution, billedProducts } = linked.data;
    spec
      .given([linked])
      .when({ type: 'LinkItem', data: again })
      .then([{ type: 'LinkItemReconnected', data: { linkItemUuid, linkItemId, institution, addedAccounts: [newSavings], billedProducts } }]);
    spec
      .given([linked, { type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId, accountIds: [] } }])
      .when({ type: 'LinkItem', data: linked.data })
      .thenThrows((error) => expect(error).toMatchObject({ code: 'LINK_ITEM_EXISTS', status: 409 } satisfies Partial<DomainRuleError>));
  });

  it('clears login required, new accounts and a pending disconnect on a reconnect', () => {
    const { linkItemId, institution, billedProducts } = linked.data;
    const reconnected: LinkItemEvent = { type: 'LinkItemReconnected', data: { linkItemUuid, linkItemId, institution, addedAccounts: [], billedProducts } };
    const flagged: LinkItemEvent[] = [
      linked,
      { type: 'LinkItemLoginRequired', data: { linkItemUuid, error: loginError } },
      { type: 'LinkItemNewAccountsAvailable', data: { linkItemUuid } },
      { type: 'LinkItemPendingDisconnect', data: { linkItemUuid, disconnectAt: '2026-12-01T00:00:00.000Z' } },
      reconnected,
    ];
    spec.given(flagged).when({ type: 'RecordLoginRepaired', linkItemUuid }).then([]);
    spec.given(flagged).when({ type: 'RecordNewAccountsAvailable', linkItemUuid }).then([{ type: 'LinkItemNewAccountsAvailable', data: { linkItemUuid } }]);
    spec.given(flagged).when({ type: 'RecordLoginRequired', linkItemUuid, error: loginError }).then([{ type: 'LinkItemLoginRequired', data: { linkItemUuid, error: loginError } }]);
  });

  it('records login required and a provider error as needing reauth, once per distinct error', () => {
    const required: LinkItemEvent = { type: 'LinkItemLoginRequired', data: { linkItemUuid, error: loginError } };
    spec.given([linked]).when({ type: 'RecordLoginRequired', linkItemUuid, error: loginError }).then([required]);
    spec.given([linked, required]).when({ type: 'RecordLoginRequired', linkItemUuid, error: loginError }).then([]);
    const down = { errorCode: 'INSTITUTION_DOWN', errorMessage: 'not responding' };
    spec.given([linked, required]).when({ type: 'RecordItemError', linkItemUuid, error: down }).then([{ type: 'LinkItemErrored', data: { linkItemUuid, error: down } }]);
  });

  it('repairs a login only when one was required', () => {
    spec.given([linked]).when({ type: 'RecordLoginRepaired', linkItemUuid }).then([]);
    spec
      .given([linked, { type: 'LinkItemErrored', data: { linkItemUuid, error: loginError } }])
      .when({ type: 'RecordLoginRepaired', linkItemUuid })
      .then([{ type: 'LinkItemLoginRepaired', data: { linkItemUuid } }]);
  });

  it('records a pending disconnect per date and new accounts once', () => {
    const pending: LinkItemEvent = { type: 'LinkItemPendingDisconnect', data: { linkItemUuid, disconnectAt: '2026-11-30T12:00:00.000Z' } };
    spec.given([linked]).when({ type: 'RecordPendingDisconnect', linkItemUuid, disconnectAt: '2026-11-30T12:00:00.000Z' }).then([pending]);
    spec.given([linked, pending]).when({ type: 'RecordPendingDisconnect', linkItemUuid, disconnectAt: '2026-11-30T12:00:00.000Z' }).then([]);
    spec.given([linked]).when({ type: 'RecordNewAccountsAvailable', linkItemUuid }).then([{ type: 'LinkItemNewAccountsAvailable', data: { linkItemUuid } }]);
    spec.given([linked, { type: 'LinkItemNewAccountsAvailable', data: { linkItemUuid } }]).when({ type: 'RecordNewAccountsAvailable', linkItemUuid }).then([]);
  });

  it('disconnects the item with its accounts; again is a no-op, and a disconnected item ignores late reports', () => {
    const disconnected: LinkItemEvent = { type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId: 'item-sandbox-1', accountIds: ['22222222-2222-5222-8222-222222222222'] } };
    spec.given([linked]).when({ type: 'DisconnectLinkItem', linkItemUuid }).then([disconnected]);
    spec.given([linked, disconnected]).when({ type: 'DisconnectLinkItem', linkItemUuid }).then([]);
    spec.given([linked, disconnected]).when({ type: 'RecordLoginRequired', linkItemUuid, error: loginError }).then([]);
  });

  it('knows no item that was never linked', () => {
    spec.given([]).when({ type: 'DisconnectLinkItem', linkItemUuid }).thenThrows(notFound);
    spec.given([]).when({ type: 'RecordNewAccountsAvailable', linkItemUuid }).thenThrows(notFound);
  });
  it('records each imported sync page with the cursor to go on from; an empty page at the same cursor records nothing', () => {
    const page: LinkItemEvent = { type: 'LinkItemSyncPageImported', data: { linkItemUuid, cursor: 'c1', added: 500, modified: 0, removed: 0 } };
    spec.given([linked]).when({ type: 'RecordSyncPage', linkItemUuid, cursor: 'c1', added: 500, modified: 0, removed: 0 }).then([page]);
    spec.given([linked, page]).when({ type: 'RecordSyncPage', linkItemUuid, cursor: 'c1', added: 0, modified: 0, removed: 0 }).then([]);
    // The provider's last page came empty after a full one: the sync's end is still recorded, with its counts.
    const totals = { added: 500, modified: 0, removed: 0 };
    spec
      .given([linked, page])
      .when({ type: 'RecordSyncPage', linkItemUuid, cursor: 'c1', added: 0, modified: 0, removed: 0, hasMore: false, syncTotals: totals })
      .then([{ type: 'LinkItemSyncPageImported', data: { linkItemUuid, cursor: 'c1', added: 0, modified: 0, removed: 0, hasMore: false, syncTotals: totals } }]);
    spec
      .given([linked, page])
      .when({ type: 'RecordSyncPage', linkItemUuid, cursor: 'c2', added: 0, modified: 0, removed: 0 })
      .then([{ type: 'LinkItemSyncPageImported', data: { linkItemUuid, cursor: 'c2', added: 0, modified: 0, removed: 0 } }]);
    spec.given([linked, { type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId: 'item-sandbox-1', accountIds: [] } }]).when({ type: 'RecordSyncPage', linkItemUuid, cursor: 'c1', added: 1, modified: 0, removed: 0 }).then([]);
  });
  it('keeps where the last complete sync ended (a paging starts, and starts again, there) apart from the cursor of the last page', () => {
    const page = (cursor: string, hasMore?: boolean): LinkItemEvent => ({ type: 'LinkItemSyncPageImported', data: { linkItemUuid, cursor, added: 1, modified: 0, removed: 0, ...(hasMore === undefined ? {} : { hasMore }) } });
    const fold = (events: LinkItemEvent[]) => events.reduce(linkItemDecider.evolve, linkItemDecider.initialState());
    expect(fold([linked, page('c1', true)])).toMatchObject({ cursor: 'c1', syncStartCursor: null });
    expect(fold([linked, page('c1', true), page('c2', false)])).toMatchObject({ cursor: 'c2', syncStartCursor: 'c2' });
    expect(fold([linked, page('c1', true), page('c2', false), page('c3', true), page('c4', true)])).toMatchObject({ cursor: 'c4', syncStartCursor: 'c2' });
    // Pages recorded before hasMore was kept each count as a sync's end.
    expect(fold([linked, page('c1'), page('c2', true)])).toMatchObject({ cursor: 'c2', syncStartCursor: 'c1' });
  });
  describe('provider balances', () => {
    const checking = '22222222-2222-5222-8222-222222222222';
    const card = '33333333-3333-5333-8333-333333333333';
    const withCard: LinkItemLinked = {
      ...linked,
      data: {
        ...linked.data,
        accounts: [
          ...linked.data.accounts,
          { ...linked.data.accounts[0], accountId: card, linkAccountId: 'acc-2', providerType: 'credit', providerSubtype: 'credit card', type: 'credit_card', subtype: 'credit card', balances: { current: '-250', available: '4750', limit: '5000' } },
        ],
      },
    };
    const reported = (accountId: string, linkAccountId: string, current: string | null, available: string | null, limit: string | null) => ({ accountId, linkAccountId, current, available, limit });
    const record = (...balances: ReturnType<typeof reported>[]) => ({ type: 'RecordProviderBalances' as const, linkItemUuid, balances });

    it('records only the accounts whose balances moved since linking', () => {
      spec
        .given([withCard])
        .when(record(reported(checking, 'acc-1', '1200.5', '1100', null), reported(card, 'acc-2', '-310.25', '4689.75', '5000')))
        .then([{ type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [reported(card, 'acc-2', '-310.25', '4689.75', '5000')] } }]);
    });

    it('appends nothing for the same balances, however the provider writes the decimals', () => {
      spec.given([withCard]).when(record(reported(checking, 'acc-1', '1200.50', '1100.0000', null), reported(card, 'acc-2', '-250.00', '4750', '5000.0'))).then([]);
    });

    it('compares with the last refresh, not the balances at linking', () => {
      const moved: LinkItemEvent = { type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [reported(checking, 'acc-1', '900', '850', null)] } };
      spec.given([withCard, moved]).when(record(reported(checking, 'acc-1', '900', '850', null))).then([]);
      spec
        .given([withCard, moved])
        .when(record(reported(checking, 'acc-1', '1200.5', '1100', null)))
        .then([{ type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [reported(checking, 'acc-1', '1200.5', '1100', null)] } }]);
    });

    it('records a limit that moved and a balance that became unknown', () => {
      spec
        .given([withCard])
        .when(record(reported(card, 'acc-2', '-250', null, '6000')))
        .then([{ type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [reported(card, 'acc-2', '-250', null, '6000')] } }]);
    });

    it("leaves out an account the user disconnected from the item", () => {
      const gone: LinkItemEvent = { type: 'LinkItemAccountDisconnected', data: { linkItemUuid, linkItemId: 'item-sandbox-1', accountId: card } };
      spec.given([withCard, gone]).when(record(reported(card, 'acc-2', '-1', '4999', '5000'))).then([]);
      spec
        .given([withCard, gone])
        .when(record(reported(card, 'acc-2', '-1', '4999', '5000'), reported(checking, 'acc-1', '1', '1', null)))
        .then([{ type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [reported(checking, 'acc-1', '1', '1', null)] } }]);
    });

    it('disconnects one account of the item; the last one takes the item with it; again, or an account not its own: nothing', () => {
      const linkItemId = 'item-sandbox-1';
      const goneCard: LinkItemEvent = { type: 'LinkItemAccountDisconnected', data: { linkItemUuid, linkItemId, accountId: card } };
      spec.given([withCard]).when({ type: 'DisconnectLinkedAccount', linkItemUuid, accountId: card }).then([goneCard]);
      spec.given([withCard, goneCard]).when({ type: 'DisconnectLinkedAccount', linkItemUuid, accountId: card }).then([]);
      spec.given([withCard]).when({ type: 'DisconnectLinkedAccount', linkItemUuid, accountId: '44444444-4444-5444-8444-444444444444' }).then([]);
      spec
        .given([withCard, goneCard])
        .when({ type: 'DisconnectLinkedAccount', linkItemUuid, accountId: checking })
        .then([
          { type: 'LinkItemAccountDisconnected', data: { linkItemUuid, linkItemId, accountId: checking } },
          { type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId, accountIds: [checking, card] } },
        ]);
      spec.given([]).when({ type: 'DisconnectLinkedAccount', linkItemUuid, accountId: card }).thenThrows(notFound);
      // A reconnect brings back none of the accounts the user disconnected.
      spec.given([withCard, goneCard]).when({ type: 'LinkItem', data: withCard.data }).then([{ type: 'LinkItemReconnected', data: { linkItemUuid, linkItemId, institution: withCard.data.institution, addedAccounts: [], billedProducts: withCard.data.billedProducts } }]);
    });

    it("leaves out accounts the item does not have, amounts that are not decimals, and a disconnected item's reports", () => {
      const stranger = '44444444-4444-5444-8444-444444444444';
      spec.given([withCard]).when(record(reported(stranger, 'acc-new', '10', '10', null), reported(checking, 'acc-1', 'NaN', '1', null), reported(card, 'acc-2', '-1e3', null, '5000'))).then([]);
      const disconnected: LinkItemEvent = { type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId: 'item-sandbox-1', accountIds: [checking, card] } };
      spec.given([withCard, disconnected]).when(record(reported(checking, 'acc-1', '1', '1', null))).then([]);
      spec.given([]).when(record(reported(checking, 'acc-1', '1', '1', null))).thenThrows(notFound);
    });
  });
});
