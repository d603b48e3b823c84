// Lint rules that keep the architecture honest (test/unit/layering.test.ts
// proves each one catches what it must):
// - contract/ is zod and types only: no Node built-ins, nothing outside it;
// - main/core runs under plain Node: never electron, the Electron adapter,
//   the CLI or the renderer;
// - main/cli never imports electron, the adapter or the renderer;
// - the renderer talks to the core only through contract/ (no main/, no
//   Node, no electron, no preload internals);
// - the rooms of main/core are in order (CORE_ROOMS): a room imports its own
//   files and lower levels only, never up or across (eslint-rules/rooms.js).
// Formatting is Prettier's (.prettierrc.json), checked by `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettierConfig from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import roomsRule from './eslint-rules/rooms.js';

const NODE_BUILTINS = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'crypto',
  'child_process',
  'http',
  'https',
  'net',
  'url',
  'util',
  'stream',
  'worker_threads',
  'module',
];

const restricted = (paths, patterns) => ({ 'no-restricted-imports': ['error', { paths, patterns }] });
const noElectron = { name: 'electron', message: 'only main/electron and preload may import electron.' };

export const layeringRules = {
  core: restricted(
    [noElectron],
    [
      { group: ['electron/*', '**/main/electron/**', '../electron/*', '../../electron/*'], message: 'main/core must not depend on the Electron adapter.' },
      { group: ['**/main/cli/**', '../cli/*', '../../cli/*'], message: 'main/core must not depend on the CLI.' },
      { group: ['**/renderer/**'], message: 'main/core must not depend on the renderer.' },
    ],
  ),
  cli: restricted(
    [noElectron],
    [
      { group: ['electron/*', '**/main/electron/**', '../electron/*'], message: 'the CLI must not depend on the Electron adapter.' },
      { group: ['**/renderer/**'], message: 'the CLI must not depend on the renderer.' },
    ],
  ),
  contract: restricted(
    [noElectron],
    [
      { group: NODE_BUILTINS, message: 'contract/ is zod and types only: no Node built-ins (the renderer compiles it).' },
      { group: ['../*', '../**'], message: 'contract/ imports nothing outside contract/ (but zod).' },
    ],
  ),
  renderer: restricted(
    [noElectron],
    [
      { group: NODE_BUILTINS, message: 'the renderer runs in a sandboxed page: no Node built-ins.' },
      { group: ['**/main/**', '**/preload/**'], message: 'the renderer talks to the core only through contract/ (the ControlApi).' },
    ],
  ),
};

/**
 * The rooms of main/core, low to high. A room may import its own files and any room on a lower level; rooms on
 * one level do not import each other. runtime/ is the composition root: it alone builds services from the rest.
 */
export const CORE_ROOMS = [
  ['util'], // errors, atomic writes, sqlite, node:http helpers, the version, install paths
  ['log'], // the logger, its ring buffer, the redactor
  ['config'], // settings, the data dir, auth schemes, server.json
  ['http'], // the loopback server, request guards, token files, web UI sessions and files
  ['openapi', 'sandbox', 'demo'], // documents and catalogues; the sandbox engines; the built-in demo API
  ['search', 'profiles'], // the search index (and the cached, prepared API); API profiles
  ['secrets', 'audit'], // keys in the keychain; the audit store
  ['approvals'], // the approval broker, grants
  ['telemetry'], // what the MCP layer and the gate tell an organisation's monitoring (OpenTelemetry, Prometheus)
  ['gate'], // the one decision path every call takes (scope, rate, policy, evidence, approval, send, record), its records
  ['egress'], // the gate's adapter for API calls: classify, build, send over HTTP
  ['execute'], // runs of execute: caps, held runs
  ['mcp', 'control', 'clients', 'diagnostics'], // MCP servers and transports; the control API; client registration; engine inventory
  ['upstream'], // other MCP servers Airlock stands in front of: their entries, and Airlock as their client
  ['runtime'], // the composition root: services, handlers, the companion and its server
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'build/**', 'out/**', 'scratch/**', 'renderer/dist/**', 'docs/**'] },
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
  { files: ['main/core/**'], rules: layeringRules.core },
  {
    files: ['main/core/**/*.ts'],
    plugins: { airlock: { rules: { rooms: roomsRule } } },
    rules: { 'airlock/rooms': ['error', { base: 'main/core', levels: CORE_ROOMS }] },
  },
  { files: ['main/cli/**'], rules: layeringRules.cli },
  { files: ['contract/**'], rules: layeringRules.contract },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...layeringRules.renderer, 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    // stdout is the MCP protocol in stdio mode: the core logs through the logger.
    files: ['main/core/**'],
    rules: { 'no-console': 'error' },
  },
);
