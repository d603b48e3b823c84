#!/usr/bin/env node
// The package's `airlock` command: the TypeScript sources in a checkout
// (main/ is there), the built JavaScript in an installed package (only dist/
// ships).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../main/cli/airlock.js', import.meta.url);
await import(existsSync(fileURLToPath(source)) ? source.href : new URL('../dist/cli/airlock.js', import.meta.url).href);
