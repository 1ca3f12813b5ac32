import { formatPosition } from '../../../core/events.js';
import { canonicalEventJson, chainHash, GENESIS_HASH } from '../../../infrastructure/event-store/event-chain.js';
import type { LoggedEvent } from '../../../infrastructure/event-store/event-log.port.js';

/** The first event of a stream that does not follow the one before it, and why. */
export interface BrokenLink {
  readonly streamId: string;
  readonly revision: number;
  readonly eventId: string;
  readonly type: string;
  readonly position: string;
  readonly reason: 'missing-predecessor' | 'out-of-order' | 'previous-hash' | 'content';
  readonly explanation: string;
}

export interface ChainReport {
  readonly streams: number;
  readonly events: number;
  /** One per broken stream: its first event that does not follow. */
  readonly broken: readonly BrokenLink[];
  /** Events no hash vouches for: not chained yet, with no chained event after them in their stream. */
  readonly unchained: { readonly events: number; readonly streams: number };
  /** Every event is chained and follows its predecessor. */
  readonly intact: boolean;
}

interface StreamCheck {
  readonly streamId: string;
  nextRevision: bigint;
  /** The hash the next event must name as its previous: the last one's, stored or (not chained yet) worked out. */
  link: Buffer;
  broken: boolean;
  /** Events since the last chained one. */
  unchainedTail: number;
}

const short = (hash: Buffer) => hash.toString('hex').slice(0, 12);

/**
 * Checks a log's hash chains event by event (decision 0044), in memory that grows with the streams
 * under way only: one at a time where the log gives each stream's events together. An event not
 * chained yet (no hash) is chained through — its hash worked out as it would be — so the next
 * chained event still vouches for it; one whose content, place or link differs from its hash
 * breaks its stream there, and the rest of that stream is not checked.
 */
export class ChainVerification {
  private readonly open = new Map<string, StreamCheck>();
  private readonly broken: BrokenLink[] = [];
  private streams = 0;
  private events = 0;
  private unchainedEvents = 0;
  private unchainedStreams = 0;

  constructor(private readonly streamsTogether: boolean) {}

  check(event: LoggedEvent): void {
    this.events += 1;
    let stream = this.open.get(event.streamId);
    if (!stream) {
      if (this.streamsTogether) this.closeAll();
      stream = { streamId: event.streamId, nextRevision: 0n, link: GENESIS_HASH, broken: false, unchainedTail: 0 };
      this.open.set(event.streamId, stream);
      this.streams += 1;
    }
    if (stream.broken) return;
    const problem = this.problemOf(stream, event);
    if (problem) {
      stream.broken = true;
      this.broken.push({ streamId: event.streamId, revision: Number(event.revision), eventId: event.id, type: event.type, position: formatPosition(event.position), ...problem });
    }
  }

  finish(): ChainReport {
    this.closeAll();
    const unchained = { events: this.unchainedEvents, streams: this.unchainedStreams };
    return { streams: this.streams, events: this.events, broken: [...this.broken], unchained, intact: this.broken.length === 0 && unchained.events === 0 };
  }

  private problemOf(stream: StreamCheck, event: LoggedEvent): Pick<BrokenLink, 'reason' | 'explanation'> | null {
    const expected = stream.nextRevision;
    if (event.revision > expected) {
      const missing = event.revision - expected > 1n ? `revisions ${expected}..${event.revision - 1n} before it are` : `revision ${expected} before it is`;
      return { reason: 'missing-predecessor', explanation: `${missing} missing: removed from the log` };
    }
    if (event.revision < expected) return { reason: 'out-of-order', explanation: `it comes after revision ${expected - 1n} but says it is revision ${event.revision}` };
    const computed = chainHash(stream.link, canonicalEventJson(event));
    stream.nextRevision = expected + 1n;
    if (event.hash === null || event.previousHash === null) {
      stream.link = computed;
      stream.unchainedTail += 1;
      return null;
    }
    if (!event.previousHash.equals(stream.link)) {
      const follows = expected === 0n ? 'the start of its stream: the genesis hash (zeros)' : `revision ${expected - 1n}, whose hash is ${short(stream.link)}`;
      return { reason: 'previous-hash', explanation: `it does not follow ${follows}: it names ${short(event.previousHash)} as the hash before it` };
    }
    if (!event.hash.equals(computed)) {
      return { reason: 'content', explanation: `it is not what was chained: its id, stream, revision, type, data or metadata changed after it was written (hash ${short(event.hash)} stored, ${short(computed)} from its content)` };
    }
    stream.link = event.hash;
    stream.unchainedTail = 0;
    return null;
  }

  private closeAll(): void {
    for (const stream of this.open.values()) {
      if (!stream.broken && stream.unchainedTail > 0) {
        this.unchainedEvents += stream.unchainedTail;
        this.unchainedStreams += 1;
      }
    }
    this.open.clear();
  }
}
