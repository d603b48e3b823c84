// A document is untrusted input: refs outside it are refused unless the
// profile allows a base, and a download is capped while it streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { downloadText } from '../../main/core/openapi/specDownload.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { tempDir } from '../helpers/paths.ts';

function docWithRef(ref: string) {
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Refs', version: '1' },
    paths: {
      '/x': {
        get: {
          operationId: 'x.get',
          responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } },
        },
      },
    },
  });
}

const SECRET_SCHEMA = JSON.stringify({ type: 'object', description: 'TOP-SECRET-CONTENT' });

function refused(ref: string) {
  return (e: unknown) => {
    assert.ok(e instanceof AirlockError, String(e));
    assert.equal(e.kind, 'spec');
    assert.ok(e.message.includes(ref), `names the ref: ${e.message}`);
    assert.match(e.message, /external \$refs are refused/);
    assert.doesNotMatch(e.message, /TOP-SECRET/);
    return true;
  };
}

test('refs outside the document are refused by default, naming the ref, and nothing is read or fetched', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  mkdirSync(join(dir, 'spec'));
  writeFileSync(join(dir, 'secret.json'), SECRET_SCHEMA);
  writeFileSync(join(dir, 'spec', 'sibling.json'), SECRET_SCHEMA);
  let fetched = 0;
  const spyFetch = (async () => {
    fetched++;
    return new Response(SECRET_SCHEMA);
  }) as typeof fetch;
  const refs = [
    '../secret.json',
    'sibling.json#/',
    join(dir, 'secret.json'),
    pathToFileURL(join(dir, 'secret.json')).href,
    'file:///etc/passwd',
    'https://evil.test/schema.json',
    '//evil.test/schema.json',
  ];
  for (const ref of refs) {
    const file = join(dir, 'spec', 'openapi.json');
    writeFileSync(file, docWithRef(ref));
    await assert.rejects(loadApiDocument(file, { cacheDir: dir, fetch: spyFetch }), refused(ref));
  }
  assert.equal(fetched, 0);
});

test('a URL document cannot make the loader fetch another host or read a local file', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const urls: string[] = [];
  for (const ref of ['https://other.test/s.json', 'file:///etc/hostname', 'defs.json']) {
    const fakeFetch = (async (url: string) => {
      urls.push(String(url));
      return new Response(docWithRef(ref));
    }) as unknown as typeof fetch;
    await assert.rejects(loadApiDocument(`https://api.test/${encodeURIComponent(ref)}/openapi.json`, { cacheDir: dir, fetch: fakeFetch }), refused(ref));
  }
  assert.ok(
    urls.every((u) => u.startsWith('https://api.test/') && u.endsWith('/openapi.json')),
    urls.join(' '),
  );
});

test('an allowed base directory resolves its files; a ref of a ref that leaves it, or a symlink out of it, is refused', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const shared = join(dir, 'shared');
  mkdirSync(shared);
  writeFileSync(join(dir, 'secret.json'), SECRET_SCHEMA);
  writeFileSync(join(shared, 'event.json'), JSON.stringify({ type: 'object', properties: { title: { type: 'string' } } }));
  const spec = join(shared, 'openapi.json');
  writeFileSync(spec, docWithRef('event.json'));
  const loaded = await loadApiDocument(spec, { cacheDir: dir, allowExternalRefs: [shared] });
  const schema = loaded.document.paths!['/x'].get.responses['200'].content['application/json'].schema;
  assert.equal(schema.properties.title.type, 'string');

  writeFileSync(join(shared, 'leaky.json'), JSON.stringify({ $ref: '../secret.json' }));
  writeFileSync(spec, docWithRef('leaky.json'));
  await assert.rejects(loadApiDocument(spec, { cacheDir: dir, allowExternalRefs: [shared] }), refused('secret.json'));

  symlinkSync(join(dir, 'secret.json'), join(shared, 'link.json'));
  writeFileSync(spec, docWithRef('link.json'));
  await assert.rejects(loadApiDocument(spec, { cacheDir: dir, allowExternalRefs: [shared] }), refused('link.json'));
});

test('an allowed origin resolves refs on it and nowhere else', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const fetched: string[] = [];
  const fakeFetch = (async (url: string) => {
    fetched.push(String(url));
    if (String(url).endsWith('/defs/event.json')) return new Response(JSON.stringify({ type: 'object', properties: { id: { type: 'integer' } } }));
    if (String(url).endsWith('/defs/bad.json')) return new Response(JSON.stringify({ $ref: 'https://evil.test/x.json' }));
    return new Response(docWithRef(String(url).includes('bad') ? 'defs/bad.json' : 'defs/event.json'));
  }) as unknown as typeof fetch;
  const ok = await loadApiDocument('https://api.test/good/openapi.json', { cacheDir: dir, fetch: fakeFetch, allowExternalRefs: ['https://api.test/good/'] });
  assert.equal(ok.document.paths!['/x'].get.responses['200'].content['application/json'].schema.properties.id.type, 'integer');
  await assert.rejects(
    loadApiDocument('https://api.test/bad/openapi.json', { cacheDir: dir, fetch: fakeFetch, allowExternalRefs: ['https://api.test/bad/'] }),
    refused('https://evil.test/x.json'),
  );
  assert.ok(!fetched.some((u) => u.includes('evil.test')), fetched.join(' '));
});

function streamOf(chunk: Uint8Array, options: { count?: number; delayMs?: number }) {
  let sent = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (options.count !== undefined && sent >= options.count) return controller.close();
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      sent++;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, sent: () => sent, cancelled: () => cancelled };
}

test('an endless chunked body stops at the byte cap, reads no further, and says so', async () => {
  const stream = streamOf(new Uint8Array(64 * 1024).fill(32), {});
  const endless = (async () => new Response(stream.body)) as typeof fetch;
  await assert.rejects(downloadText('https://api.test/x', { fetch: endless, maxBytes: 1024 * 1024 }), /larger than 1048576 bytes/);
  assert.ok(stream.sent() <= 18, `read ${stream.sent()} chunks of 64 KiB for a 1 MiB cap`);
  assert.ok(stream.cancelled(), 'the body stream is cancelled');
});

test('a slow body that trickles forever ends at the time cap', async () => {
  const stream = streamOf(new Uint8Array([32]), { delayMs: 20 });
  const slow = (async () => new Response(stream.body)) as typeof fetch;
  const started = Date.now();
  await assert.rejects(downloadText('https://api.test/x', { fetch: slow, timeoutMs: 300 }), /no complete answer within 300 ms/);
  assert.ok(Date.now() - started < 5_000);
});

test('a server that never answers, and a fetch that ignores its signal, still end at the time cap', async () => {
  const hanging = (() => new Promise<Response>(() => {})) as typeof fetch;
  await assert.rejects(downloadText('https://api.test/x', { fetch: hanging, timeoutMs: 200 }), /no complete answer within 200 ms/);
});

test('a declared Content-Length over the cap is refused before the body is read', async () => {
  const stream = streamOf(new Uint8Array(10), { count: 1 });
  const big = (async () => new Response(stream.body, { headers: { 'content-length': String(10 * 1024 * 1024) } })) as typeof fetch;
  await assert.rejects(downloadText('https://api.test/x', { fetch: big, maxBytes: 1024 }), /larger than 1024 bytes \(Content-Length/);
});
