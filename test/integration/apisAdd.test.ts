// `airlock apis add` saves nothing it cannot serve (issue 36 §8): a document
// that names no server URL is refused before anything is saved, with how to
// give one; one the running companion cannot serve (a security scheme
// Airlock cannot send) is not kept either, and the error says why. With and
// without a running companion, `apis list` never shows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliToEnd, serve } from '../helpers/processes.ts';
import { tempDir } from '../helpers/paths.ts';

const T = { timeout: 120_000 };

const document = (extra: Record<string, unknown>) =>
  JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Nowhere', version: '1' },
    paths: { '/things': { get: { operationId: 'things.list', responses: { 200: { description: 'ok' } } } } },
    ...extra,
  });

test('a document with no server URL is refused before anything is saved, with or without a companion', T, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const spec = join(dir, 'nowhere.json');
  writeFileSync(spec, document({}));
  const offline = await runCliToEnd(['apis', 'add', 'nowhere', '--spec', spec, '--data-dir', dir]);
  assert.equal(offline.code, 2, offline.stderr);
  assert.match(offline.stderr, /declares no server URL to send its calls to; nothing was saved \(give one with --base-url https:\/\/…\)/);
  assert.doesNotMatch((await runCliToEnd(['apis', 'list', '--data-dir', dir])).stdout, /nowhere/);

  const server = await serve(dir);
  t.after(() => server.stop());
  const live = await runCliToEnd(['apis', 'add', 'nowhere', '--spec', spec, '--data-dir', dir]);
  assert.equal(live.code, 2, live.stderr);
  assert.match(live.stderr, /nothing was saved/);
  assert.doesNotMatch((await runCliToEnd(['apis', 'list', '--data-dir', dir])).stdout, /nowhere/);

  // One the companion cannot serve (it needs mutual TLS, which Airlock cannot send): tried, then not kept.
  const mtls = join(dir, 'mtls.json');
  writeFileSync(
    mtls,
    document({ servers: [{ url: 'https://mtls.example.test' }], components: { securitySchemes: { cert: { type: 'mutualTLS' } } }, security: [{ cert: [] }] }),
  );
  const failed = await runCliToEnd(['apis', 'add', 'mtls', '--spec', mtls, '--data-dir', dir]);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /mtls could not be served, so nothing was saved: .*mutualTLS/);
  assert.doesNotMatch((await runCliToEnd(['apis', 'list', '--data-dir', dir])).stdout, /mtls/);
});
