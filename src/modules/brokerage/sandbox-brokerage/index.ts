export { createSandboxBrokerage, SANDBOX_BROKERAGES, type SandboxBrokerage, type SandboxBrokerageOptions } from './sandbox-brokerage.provider.js';
