import base from './jest.config.js';

/**
 * The browser tier (test/*.browser-spec.ts): the service's pages in a real Chromium, driven by
 * playwright-core. Not part of `npm test` (the default testMatch leaves these files out); run by
 * `npm run test:browser` and by .ci/run, which installs Chromium first.
 */
export default {
  ...base,
  testMatch: ['<rootDir>/test/**/*.browser-spec.ts'],
  testTimeout: 60000,
  maxWorkers: 1,
};
