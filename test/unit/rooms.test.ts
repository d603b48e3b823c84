// The rooms of main/core are in order, and lint holds them there: a room
// imports its own files and lower levels only (eslint-rules/rooms.js, the
// order in eslint.config.js's CORE_ROOMS). This proves the rule fires for
// every kind of import, up and across, and that every room is in the order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { ROOT } from '../helpers/paths.ts';

const eslint = new ESLint({ cwd: ROOT });
/** The room order, as eslint.config.js gives it to the rule. */
const { CORE_ROOMS } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { CORE_ROOMS: string[][] };
/** The room-rule messages lint gives for `code` placed at `filePath`. */
const roomErrors = async (code: string, filePath: string) => {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'airlock/rooms').map((m) => m.message);
};

test('an import that goes up the room order is refused, whatever its form', { timeout: 30_000 }, async () => {
  const forms = [
    "import { createCompanion } from '../runtime/companion.ts';\nexport const a = createCompanion;\n",
    "import type { Services } from '../runtime/services.ts';\nexport type A = Services;\n",
    "export { createCompanion } from '../runtime/companion.ts';\n",
    "export * from '../runtime/companion.ts';\n",
    "export const load = () => import('../runtime/companion.ts');\n",
    "export type A = import('../runtime/services.ts').Services;\n",
  ];
  for (const code of forms) {
    const errors = await roomErrors(code, 'main/core/openapi/x.ts');
    assert.equal(errors.length, 1, code);
    assert.match(errors[0]!, /openapi \(level \d+\) may not import runtime/);
  }
  // From a file in a sub-folder of a room, too.
  assert.equal((await roomErrors("import { x } from '../../egress/egressGate.ts';\nexport const a = x;\n", 'main/core/sandbox/deno/x.ts')).length, 1);
});

test('an import across rooms of one level is refused', { timeout: 30_000 }, async () => {
  const [error] = await roomErrors("import { x } from '../search/operationSearch.ts';\nexport const a = x;\n", 'main/core/profiles/x.ts');
  assert.match(error!, /profiles may not import search: they are on the same level/);
});

test('a room imports its own files and lower rooms freely', { timeout: 30_000 }, async () => {
  const code = [
    "import { AirlockError } from '../util/errors.ts';",
    "import type { Logger } from '../log/logger.ts';",
    "import { x } from './egressGate.ts';",
    "import { z } from 'zod';",
    'export const a = [AirlockError, x, z] as unknown as Logger;',
    '',
  ].join('\n');
  assert.deepEqual(await roomErrors(code, 'main/core/egress/x.ts'), []);
});

test('every folder of main/core is a room in the order, once, and no file sits outside a room', () => {
  const listed = CORE_ROOMS.flat();
  assert.equal(new Set(listed).size, listed.length, 'a room is listed twice');
  const entries = readdirSync(join(ROOT, 'main', 'core'), { withFileTypes: true });
  assert.deepEqual(
    entries.filter((e) => e.isFile()).map((e) => e.name),
    [],
    'files at the top of main/core belong to no room',
  );
  const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(
    folders.filter((f) => !listed.includes(f)),
    [],
    'rooms missing from CORE_ROOMS in eslint.config.js',
  );
  assert.deepEqual(
    listed.filter((r) => !folders.includes(r)),
    [],
    'CORE_ROOMS names a room that does not exist',
  );
  assert.equal(CORE_ROOMS.at(-1)!.join(), 'runtime', 'runtime, the composition root, is the top room');
});

test('a room the order does not know is refused, so a new room must be placed', { timeout: 30_000 }, async () => {
  const [error] = await roomErrors("import { x } from '../log/logger.ts';\nexport const a = x;\n", 'main/core/newroom/x.ts');
  assert.match(error!, /newroom is not a room of main\/core/);
});
