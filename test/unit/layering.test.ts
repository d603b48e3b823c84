// The layering rule is a lint rule; this proves it catches what it must.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';
import { ROOT } from '../helpers/paths.ts';

const lint = async (code: string, filePath: string) => {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.ruleId);
};

test('main/core and main/cli may not import electron', async () => {
  assert.ok((await lint("import { app } from 'electron';\nexport const a = app;\n", 'main/core/x.ts')).includes('no-restricted-imports'));
  assert.ok((await lint("const e = require('electron');\nexport { e };\n", 'main/core/y.ts')).length > 0);
  assert.ok((await lint("import { app } from 'electron';\nexport const a = app;\n", 'main/cli/x.ts')).includes('no-restricted-imports'));
  assert.ok((await lint("import { x } from '../electron/window.ts';\nexport const a = x;\n", 'main/core/z.ts')).includes('no-restricted-imports'));
});

test('the Electron adapter may import electron', async () => {
  assert.deepEqual(await lint("import { app } from 'electron';\nexport const a = app;\n", 'main/electron/x.ts'), []);
});

test('main/core may not write to the console (stdout is the protocol in stdio mode)', async () => {
  assert.ok((await lint("console.log('hi');\n", 'main/core/x.ts')).includes('no-console'));
});
