// An API document is downloaded under the same address policy as API calls
// (issue 36 §1): a cloud metadata or link-local address is never reached,
// literal or after DNS, IPv4 or IPv6; a private or loopback address only when
// the address given is one; redirects are followed within the origin given,
// and one to another origin is refused before anything is sent there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { downloadText } from '../../main/core/openapi/specDownload.ts';
import { AirlockError } from '../../main/core/util/errors.ts';

const T = { timeout: 10_000 };

/** A local server: `routes` by path; every request it got, in `seen`. */
async function server(
  routes: Record<string, (res: import('node:http').ServerResponse) => void>,
): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const s: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => s.close(() => r())) };
}

const denied = (pattern: RegExp) => (error: unknown) => error instanceof AirlockError && error.kind === 'denied' && pattern.test(error.message);

test('a document at a loopback address given as such is read; a redirect within its origin is followed', T, async (t) => {
  const s = await server({
    '/old.json': (res) => res.writeHead(302, { location: '/new.json' }).end(),
    '/new.json': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"openapi":"3.1.0"}'),
  });
  t.after(() => s.close());
  assert.equal(await downloadText(`${s.url}/old.json`), '{"openapi":"3.1.0"}');
  assert.deepEqual(s.seen, ['/old.json', '/new.json']);
});

test('a redirect to another origin is refused, naming it, and nothing is sent there', T, async (t) => {
  const elsewhere = await server({ '/doc.json': (res) => res.writeHead(200).end('{}') });
  t.after(() => elsewhere.close());
  const s = await server({ '/doc.json': (res) => res.writeHead(302, { location: `${elsewhere.url}/doc.json` }).end() });
  t.after(() => s.close());
  await assert.rejects(downloadText(`${s.url}/doc.json`), denied(new RegExp(`redirects to another origin \\(${elsewhere.url.replace(/[.]/g, '\\.')}\\)`)));
  assert.deepEqual(elsewhere.seen, []);
  // The metadata address, the field test's case: refused the same way, before any connection.
  const toMetadata = await server({ '/doc.json': (res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end() });
  t.after(() => toMetadata.close());
  await assert.rejects(downloadText(`${toMetadata.url}/doc.json`), denied(/redirects to another origin \(http:\/\/169\.254\.169\.254\)/));
});

test('metadata and link-local addresses are never read from: literal, IPv6, or after DNS', T, async () => {
  await assert.rejects(downloadText('http://169.254.169.254/latest/meta-data/'), denied(/metadata address is never read from/));
  await assert.rejects(downloadText('http://169.254.10.10/doc.json'), denied(/link-local address is never read from/));
  await assert.rejects(downloadText('http://[fe80::1]/doc.json'), denied(/link-local/));
  await assert.rejects(downloadText('http://[fd00:ec2::254]/doc.json'), denied(/metadata/));
  // A name that resolves to the metadata address.
  const resolver = async () => [{ address: '169.254.169.254', family: 4 }];
  await assert.rejects(downloadText('https://docs.example.test/openapi.json', { resolver }), denied(/docs\.example\.test is 169\.254\.169\.254 \(metadata\)/));
  // A name that resolves to public and private addresses alike (a rebinding): refused.
  const mixed = async () => [
    { address: '93.184.216.34', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ];
  await assert.rejects(downloadText('https://docs.example.test/openapi.json', { resolver: mixed }), denied(/public and private addresses/));
});

test('a private or loopback address is read from only when typed: a name that resolves to one is refused, naming both, and nothing is sent', T, async (t) => {
  const s = await server({ '/doc.json': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"openapi":"3.1.0"}') });
  t.after(() => s.close());
  const port = new URL(s.url).port;
  // Typed as such: the loopback address itself, or `localhost`.
  assert.equal(await downloadText(`${s.url}/doc.json`), '{"openapi":"3.1.0"}');
  assert.equal(await downloadText(`http://localhost:${port}/doc.json`), '{"openapi":"3.1.0"}');
  assert.deepEqual(s.seen, ['/doc.json', '/doc.json']);
  // A public-looking name whose only address is loopback (the server above) or private: refused before connecting.
  const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
  const refusal = (error: unknown, address: string, hint: string) =>
    error instanceof AirlockError &&
    error.kind === 'denied' &&
    new RegExp(`^docs\\.example\\.test resolves to ${address.replace(/[.]/g, '\\.')} \\((loopback|private)\\)`).test(error.message) &&
    error.hint === `if the document is meant to come from ${address}, give that address itself: ${hint}`;
  await assert.rejects(downloadText(`http://docs.example.test:${port}/doc.json`, { resolver: toLoopback }), (e) =>
    refusal(e, '127.0.0.1', `http://127.0.0.1:${port}/doc.json`),
  );
  assert.deepEqual(s.seen, ['/doc.json', '/doc.json']);
  const toPrivate = async () => [{ address: '10.0.0.5', family: 4 }];
  await assert.rejects(downloadText('https://docs.example.test/specs/openapi.json', { resolver: toPrivate }), (e) =>
    refusal(e, '10.0.0.5', 'https://10.0.0.5/specs/openapi.json'),
  );
  const toPrivateV6 = async () => [{ address: 'fd12:3456::1', family: 6 }];
  await assert.rejects(downloadText('https://docs.example.test/openapi.json', { resolver: toPrivateV6 }), (e) =>
    refusal(e, 'fd12:3456::1', 'https://[fd12:3456::1]/openapi.json'),
  );
});

test('a redirect that looks same-origin but leads to the metadata address is refused as metadata, with no hint to trust it', T, async (t) => {
  const locations = ['//169.254.169.254/latest/meta-data/', '/\\169.254.169.254/latest/meta-data/', 'http://[::ffff:a9fe:a9fe]/latest/meta-data/'];
  const s = await server(Object.fromEntries(locations.map((location, i) => [`/doc${i}.json`, (res) => res.writeHead(302, { location }).end()])));
  t.after(() => s.close());
  // The person's own host and port before an `@`: the origin is the metadata address's.
  const userinfo = await server({ '/doc.json': (res) => res.writeHead(302, { location: `http://${new URL(s.url).host}@169.254.169.254/` }).end() });
  t.after(() => userinfo.close());
  for (const url of [...locations.map((_, i) => `${s.url}/doc${i}.json`), `${userinfo.url}/doc.json`])
    await assert.rejects(
      downloadText(url),
      (error: unknown) =>
        error instanceof AirlockError &&
        error.kind === 'denied' &&
        /redirects to another origin \(http:\/\/(169\.254\.169\.254|\[::ffff:a9fe:a9fe\])\), a cloud metadata address, which is never read from/.test(
          error.message,
        ) &&
        error.hint === undefined,
      url,
    );
});
