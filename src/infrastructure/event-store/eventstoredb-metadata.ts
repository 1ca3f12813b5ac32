import type { EventMetadata } from '../../core/events.js';
import type { ChainLink } from './event-chain.js';

/** Where an event's links in its stream's hash chain are kept on EventStoreDB (decision 0044): hex SHA-256 hashes. */
export interface StoredChainLink {
  readonly previousHash: string;
  readonly hash: string;
}

/**
 * EventStoreDB reserves `$`-names in event metadata; `$correlationId` and `$causationId` are its
 * own (its `$by_correlation_id` projection and its UI read them). Our other fields keep their
 * names; the hash chain rides beside them as `chain`.
 */
export interface EventStoreDbMetadata extends Omit<EventMetadata, 'correlationId' | 'causationId'> {
  readonly $correlationId: string;
  readonly $causationId: string;
  readonly chain?: StoredChainLink;
}

export function toEventStoreDbMetadata({ correlationId, causationId, ...rest }: EventMetadata, link?: ChainLink): EventStoreDbMetadata {
  return { ...rest, $correlationId: correlationId, $causationId: causationId, ...(link ? { chain: { previousHash: link.previousHash.toString('hex'), hash: link.hash.toString('hex') } } : {}) };
}

/** Back to the port's names, the chain left out; metadata written before the `$` names (plain `correlationId`) reads the same. */
export function fromEventStoreDbMetadata(stored: Record<string, unknown>): EventMetadata {
  const { $correlationId, $causationId, chain: _chain, ...rest } = stored;
  return {
    ...(rest as Omit<EventMetadata, 'correlationId' | 'causationId'>),
    correlationId: ($correlationId ?? rest.correlationId) as string,
    causationId: ($causationId ?? rest.causationId) as string,
  };
}

/** The event's links as stored; null for an event written before the chain. */
export function chainLinkOf(stored: Record<string, unknown>): ChainLink | null {
  const chain = stored.chain as Partial<StoredChainLink> | undefined;
  if (typeof chain?.previousHash !== 'string' || typeof chain.hash !== 'string') return null;
  return { previousHash: Buffer.from(chain.previousHash, 'hex'), hash: Buffer.from(chain.hash, 'hex') };
}
