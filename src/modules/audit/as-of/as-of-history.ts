import type { Kysely } from 'kysely';
import { comparePositions, type RecordedEvent } from '../../../core/events.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { accountStreamId } from '../../accounts/account.js';
import { brokerageAccountStreamId, brokerageAuthorizationStreamId } from '../../brokerage/brokerage.events.js';
import { linkItemStreamId } from '../../link/link-items/link-item.js';

/**
 * A stream as it stood at `instant`: its events up to the first one recorded after it
 * (`metadata.occurredAt`, the service's clock when the change was made). A prefix, never a
 * filter, so the state folded from it is one the stream really had, even were two instances'
 * clocks to disagree.
 */
export function eventsUpTo(history: readonly RecordedEvent[], instant: Date): RecordedEvent[] {
  const after = history.findIndex((event) => new Date(event.metadata.occurredAt).getTime() > instant.getTime());
  return after === -1 ? [...history] : history.slice(0, after);
}

/**
 * The events an account's read-model row is made of, as they stood at `instant`, in the order they
 * were appended: its own stream, and its connection's (a link item's, or a brokerage
 * authorization's and the account's holdings) as the read model names them now. Streams of
 * another user are left out.
 */
export async function accountHistoryUpTo(store: EventStore, db: Kysely<Database>, owner: string, accountId: string, instant: Date): Promise<RecordedEvent[]> {
  const row = await db.selectFrom('accounts').select(['link_item_uuid', 'brokerage_authorization_uuid']).where('id', '=', accountId).where('user_id', '=', owner).executeTakeFirst();
  const streamIds = [accountStreamId(accountId)];
  if (row?.link_item_uuid) streamIds.push(linkItemStreamId(row.link_item_uuid));
  if (row?.brokerage_authorization_uuid) streamIds.push(brokerageAuthorizationStreamId(row.brokerage_authorization_uuid), brokerageAccountStreamId(accountId));
  const streams = await store.readStreams(streamIds);
  return [...streams.values()]
    .filter((history) => history.length > 0 && history[0].metadata.userId === owner)
    .flatMap((history) => eventsUpTo(history, instant))
    .sort((a, b) => comparePositions(a.position, b.position));
}
