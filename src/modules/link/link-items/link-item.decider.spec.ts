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
  it('links an item once; linking it again is refused', () => {
    spec.given([]).when({ type: 'LinkItem', data: linked.data }).then([linked]);
    spec
      .given([linked])
      .when({ type: 'LinkItem', data: linked.data })
      .thenThrows((error) => expect(error).toMatchObject({ code: 'LINK_ITEM_EXISTS', status: 409 } satisfies Partial<DomainRuleError>));
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
    spec
      .given([linked, page])
      .when({ type: 'RecordSyncPage', linkItemUuid, cursor: 'c2', added: 0, modified: 0, removed: 0 })
      .then([{ type: 'LinkItemSyncPageImported', data: { linkItemUuid, cursor: 'c2', added: 0, modified: 0, removed: 0 } }]);
    spec.given([linked, { type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId: 'item-sandbox-1', accountIds: [] } }]).when({ type: 'RecordSyncPage', linkItemUuid, cursor: 'c1', added: 1, modified: 0, removed: 0 }).then([]);
  });
});
