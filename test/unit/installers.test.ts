// The installer configuration is what electron-builder accepts (its own JSON
// schema), with the targets, file association and fuses the release needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { parse } from 'yaml';
import { ROOT } from '../helpers/paths.ts';

const require = createRequire(import.meta.url);

test("electron-builder.yml validates against electron-builder's schema and has the release's targets and fuses", () => {
  const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, any>;
  const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
  const Ajv = require('ajv') as new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } };
  const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);
  assert.ok(validate(config), JSON.stringify(validate.errors, null, 2));

  const targets = (platform: string) =>
    (config[platform].target as { target: string; arch?: string[] }[]).map((t) => `${t.target}:${(t.arch ?? []).join('+')}`);
  assert.deepEqual(targets('mac'), ['dmg:x64+arm64', 'zip:x64+arm64']);
  assert.deepEqual(targets('win'), ['nsis:x64+arm64']);
  assert.deepEqual(targets('linux'), ['AppImage:x64', 'deb:x64']);
  assert.equal(config.mac.hardenedRuntime, true);
  assert.deepEqual(
    config.fileAssociations.map((f: { ext: string }) => f.ext),
    ['mcpb'],
  );
  assert.equal(config.electronFuses.runAsNode, false);
  assert.equal(config.electronFuses.onlyLoadAppFromAsar, true);
  assert.equal(config.electronFuses.enableEmbeddedAsarIntegrityValidation, true);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string };
  assert.equal(pkg.main, 'out/main/main.js', 'the app starts the bundled main');
  for (const icon of [config.mac.icon, config.win.icon, config.linux.icon]) readFileSync(join(ROOT, icon));
});
