// Lint rules that keep the architecture honest. The layering rule is the one
// that matters most: main/core and the CLI run under plain Node, so they may
// never import electron; only main/electron (the thin adapter) may.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettierConfig from 'eslint-config-prettier';

export const layeringRules = {
  'no-restricted-imports': [
    'error',
    {
      paths: [{ name: 'electron', message: 'main/core and main/cli run under plain Node: only main/electron may import electron.' }],
      patterns: [{ group: ['electron/*', '**/electron/**', '../electron/*'], message: 'main/core and main/cli must not depend on the Electron adapter.' }],
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'scratch/**', 'renderer/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettierConfig,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['main/core/**', 'main/cli/**'],
    rules: layeringRules,
  },
  {
    // stdout is the MCP protocol in stdio mode: the core logs through the logger.
    files: ['main/core/**'],
    rules: { 'no-console': 'error' },
  },
);
