// ESLint flat config: typescript-eslint's strict type-aware rules for hand-written code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'generated/**', 'generator/test/golden/**', 'generator/test/.typecheck-*/**', 'generator/test/.corpus-*/**', 'generator/test/.client-standalone-*/**', '*/dist/**', 'dist/**', 'server/docs/**', 'spec/dist/**', 'docs/index.html', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Template literals with numbers are idiomatic in messages and URLs.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly', SharedArrayBuffer: 'readonly', Atomics: 'readonly', Int32Array: 'readonly' } } },
);
