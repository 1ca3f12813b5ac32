/** Unit (*.spec.ts, pure), integration (*.int-spec.ts, real PostgreSQL/Redis) and end-to-end (test/*.e2e-spec.ts) tiers. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: ['<rootDir>/{src,projections,test,bench}/**/*.{spec,int-spec,e2e-spec}.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
