export { generateSandboxHistory } from './sandbox-history.generator.js';
export type {
  PlantedStream,
  PlantedStreamFrequency,
  SandboxAccount,
  SandboxHistory,
  SandboxHistoryOptions,
} from './sandbox-history.js';
export { SANDBOX_INSTITUTIONS } from './sandbox-institutions.js';
export {
  checkTransactionCount,
  createSandboxBank,
  MAX_TRANSACTION_COUNT,
  type FiredWebhook,
  type PublicTokenRequest,
  type SandboxBank,
  type SandboxBankOptions,
} from './sandbox-bank.provider.js';
export { SANDBOX_SIGNATURE_HEADER, signWebhook, verifyWebhookSignature, parseWebhookBody, type SignedWebhook, type WebhookSecret } from './sandbox-webhooks.js';
