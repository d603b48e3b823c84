// node:http and node:https, loaded with require. An ES import of either makes
// Node build the module's namespace, and reading its lazy getters (fetch's
// classes, WebSocket…) loads undici: 20–30 ms of every start on Node 24 for
// nothing Airlock uses. Import the types from 'node:http' with `import type`.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const http = require('node:http') as typeof import('node:http');
export const https = require('node:https') as typeof import('node:https');
