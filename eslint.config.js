import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The scripts the service's pages send to browsers.
    files: ['src/**/*.client.js'],
    languageOptions: { sourceType: 'module', globals: { document: 'readonly', location: 'readonly', navigator: 'readonly', fetch: 'readonly', URL: 'readonly', Intl: 'readonly' } },
  },
  {
    // Dependencies point inwards: infrastructure offers ports (e.g. http/authenticator.port.ts) and
    // the modules implement them.
    files: ['src/infrastructure/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/modules/**'], message: 'src/infrastructure must not import from src/modules: declare a port here and let the module implement it.' }] }],
    },
  },
);
