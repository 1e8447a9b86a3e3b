// ESLint for the TypeScript of both extensions (extension/, type-checked
// through each folder's tsconfig) and the JavaScript of scripts/ (the build,
// test and release scripts, the npm package's launcher). `npm test` runs it
// first (scripts/lib/lint.mjs); `npx eslint .` runs it alone.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['out/', 'dist/', 'bin/', 'node_modules/', '.test-artifacts/', '.playwright-mcp/'] },
  {
    files: ['scripts/**/*.mjs', 'eslint.config.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: globals.node },
    rules: {
      // `({ big, ...rest }) => rest` is how a script leaves a field out of
      // what it prints: the named field is the point, not an unused variable.
      'no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // The code-server tests hand functions to the page (evaluate), where
    // they run with the page's globals.
    files: ['scripts/e2e-vscode/*.mjs'],
    languageOptions: { globals: { document: 'readonly' } },
  },
  {
    // The npm package's launcher and its platform table: CommonJS, run by
    // whatever Node the user has (engines: >=18).
    files: ['scripts/npm/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    files: ['extension/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A test's `let x; … () => x …; x = found;` stands for state a callback
      // reads later: a const would have to move below the callback.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // node:test's test() and describe() return promises the runner itself
      // waits for; a test file's top-level calls are not floating.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }],
      }],
    },
  },
  {
    // The browser extension's code runs in the browser (service worker, popup).
    files: ['extension/browser/src/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Declares the chrome.* APIs the way @types/chrome does: a message or a
    // stored value is whatever the other end sent (any), and the code that
    // receives one gives it its type there.
    files: ['extension/browser/src/chrome.d.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['extension/test/**/*.ts', 'extension/browser/test/**/*.ts'],
    rules: {
      // Tests read back the JSON that they or the code under test wrote, and
      // assert on its fields: a wrong shape fails the assertion, so typing
      // each parse would add nothing but casts.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement the async interfaces they stand in for with methods
      // that answer at once.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
