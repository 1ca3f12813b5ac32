export { createSandboxMarket, DEFAULT_MARKET_SEED, formatPriceCents, type SandboxMarket } from './sandbox-market.js';
export { createSandboxQuoteProvider } from './sandbox-quote.provider.js';
export { SANDBOX_SECURITIES, type SandboxSecurity } from './security-universe.js';
export { formatIsoDate, isSession, parseIsoDate, sessionDay, sessionIndex } from './market-calendar.js';
export { hashText, mix32 } from './price-walk.js';
