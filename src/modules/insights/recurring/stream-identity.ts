import { createHash } from 'node:crypto';
import type { DetectedFrequency, StreamType } from './recurring-stream.types.js';

/** UUID namespace of recurring streams (a fixed random value; never change it). */
const RECURRING_STREAM_NAMESPACE = 'c4a7f0de-5b1e-4f39-9d7a-2e61a0b8d3f4';

/**
 * Frequencies that one schedule can be read as while its history is short (two paydays 14 days
 * apart are biweekly until a third shows they are the 1st and the 15th) share an identity.
 */
export type FrequencyFamily = 'sub-monthly' | 'monthly' | 'annual';

export function frequencyFamilyOf(frequency: DetectedFrequency): FrequencyFamily {
  switch (frequency) {
    case 'WEEKLY':
    case 'BIWEEKLY':
    case 'SEMI_MONTHLY':
      return 'sub-monthly';
    case 'MONTHLY':
      return 'monthly';
    case 'ANNUALLY':
      return 'annual';
    default: {
      const unreachable: never = frequency;
      throw new Error(`Unknown frequency ${String(unreachable)}`);
    }
  }
}

export interface StreamIdentity {
  readonly accountId: string;
  readonly streamType: StreamType;
  readonly payeeKey: string;
  readonly family: FrequencyFamily;
  /** 1 for the first stream of its kind at the payee; later ones (a second subscription) count up. */
  readonly ordinal: number;
}

/**
 * A UUID v5 over what a stream *is*, not over its amounts or dates, so a price change or another
 * month of history keeps the id.
 */
export function streamIdOf(identity: StreamIdentity): string {
  const name = [identity.accountId, identity.streamType, identity.payeeKey, identity.family]
    .concat(identity.ordinal > 1 ? [String(identity.ordinal)] : [])
    .join('\u001f');
  return uuidV5(RECURRING_STREAM_NAMESPACE, name);
}

export function uuidV5(namespace: string, name: string): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
