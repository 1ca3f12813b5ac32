import { WEBHOOK_SIGNATURE_TOLERANCE_SECONDS } from '../sandbox-bank/sandbox-webhooks.js';

/**
 * How long a received webhook's id is kept. A delivery verifies only if signed within the tolerance
 * of the receiver's clock, either side, so one signed up to a tolerance after its first receipt can
 * arrive up to two tolerances after it; past that no replay of it can verify. One tolerance more
 * covers instances whose clocks disagree.
 */
export const RECEIVED_WEBHOOK_RETENTION_MS = 3 * WEBHOOK_SIGNATURE_TOLERANCE_SECONDS * 1000;
