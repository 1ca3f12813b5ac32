import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand, metadataFor } from '../../infrastructure/event-store/handle-command.js';
import { DomainRuleError } from '../../core/errors.js';
import { WrongExpectedRevisionError } from '../../core/events.js';
import { foldEvents } from '../../core/decider.js';
import { type TagEvent, tagNameKey, tagStreamId } from './tag.js';
import { tagDecider } from './tag.decider.js';
import { decideTagName, evolveTagName, initialTagNameState, type TagNameEvent, tagNameStreamId } from './tag-name.js';

/** A claim whose tag stream is still empty may be a creation in flight; past this, a crash left it behind. */
const CREATION_GRACE_MS = 60_000;
const MAX_ATTEMPTS = 25;

/**
 * Claims `name` for `tagId` on the name's own stream, appended at the revision read: of two
 * concurrent claims the store refuses one, which reads again and finds the name taken (409).
 */
export async function claimTagName(store: EventStore, tagId: string, name: string, context: CommandContext): Promise<void> {
  const streamId = tagNameStreamId(context.userId, name);
  for (let attempt = 1; ; attempt += 1) {
    const history = await store.readStream(streamId);
    const state = foldEvents({ evolve: evolveTagName, initialState: initialTagNameState }, history as unknown as TagNameEvent[]);
    const lastClaim = [...history].reverse().find((event) => event.type === 'TagNameClaimed');
    const holderStillHoldsIt = state.holder !== null && state.holder !== tagId && (await holds(store, state.holder, name, lastClaim?.metadata.occurredAt, context.now));
    const events = decideTagName({ type: 'ClaimTagName', tagId, name, holderStillHoldsIt }, state);
    if (events.length === 0) return;
    const expected = history.length === 0 ? 'no_stream' : history[history.length - 1].revision;
    try {
      await store.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata: metadataFor(context) })), expected);
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new DomainRuleError('CONCURRENT_MODIFICATION', 'Tag was changed by another request at the same time; try again.', 409);
    }
  }
}

/** Gives a name back once its tag is renamed or deleted. Best effort: a claim left behind is taken over (see `holds`). */
export async function releaseTagName(store: EventStore, tagId: string, name: string, context: CommandContext): Promise<void> {
  await handleCommand(store, tagNameStreamId(context.userId, name), { decide: decideTagName, evolve: evolveTagName, initialState: initialTagNameState }, { type: 'ReleaseTagName', tagId }, context, 'Tag');
}

async function holds(store: EventStore, holderId: string, name: string, claimedAt: string | undefined, now: Date): Promise<boolean> {
  const history = (await store.readStream(tagStreamId(holderId))) as unknown as TagEvent[];
  if (history.length === 0) return claimedAt !== undefined && now.getTime() - new Date(claimedAt).getTime() < CREATION_GRACE_MS;
  const holder = foldEvents(tagDecider, history);
  return holder.status === 'live' && holder.name !== null && tagNameKey(holder.name) === tagNameKey(name);
}
