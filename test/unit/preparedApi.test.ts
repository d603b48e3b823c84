// The prepared store of a document's catalogue and search index: a second
// start on an unchanged document opens what the first built (the same
// operations, calls, schema names and search answers); an edited document, a
// damaged or foreign store, or a profile that allows external $refs builds
// afresh, and a bad store is never an error. A part read later (one
// operation's details) that fails its check is never used: the store is
// removed, so the next start prepares it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPreparedApi, prepareApi, prepareStore, type PreparedApi } from '../../main/core/search/preparedApi.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { readDocumentSource } from '../../main/core/openapi/loadDocument.ts';
import { DEMO_SPEC, tempDir } from '../helpers/paths.ts';

/** A store's parts: its sections, then the header as JSON text, its 4-byte length and a 4-byte magic number. */
function unframe(bytes: Buffer): { body: Buffer; header: string; magic: Buffer } {
  const length = bytes.readUInt32LE(bytes.length - 8);
  return {
    body: bytes.subarray(0, bytes.length - 8 - length),
    header: bytes.subarray(bytes.length - 8 - length, bytes.length - 8).toString('utf8'),
    magic: bytes.subarray(bytes.length - 4),
  };
}

function framed(body: Buffer, header: string, magic: Buffer): Buffer {
  const head = Buffer.from(header);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(head.length, 0);
  return Buffer.concat([body, head, length, magic]);
}

/** The store with one byte of section `name` changed (at `at` within it). */
function flipped(store: Buffer, name: string, at = 0): Buffer {
  const { header } = unframe(store);
  const place = (JSON.parse(header) as { sections: Record<string, { offset: number }> }).sections[name]!;
  const copy = Buffer.from(store);
  copy[place.offset + at] = copy[place.offset + at]! ^ 0x20;
  return copy;
}

/** A temp dir with a cache dir and a private copy of the demo API's document, removed after `run`. */
async function withCopy(run: (paths: { dir: string; cacheDir: string; spec: string }) => Promise<void>): Promise<void> {
  const { dir, cleanup } = tempDir('airlock-api-cache-');
  try {
    const spec = join(dir, 'openapi.yaml');
    copyFileSync(DEMO_SPEC, spec);
    await run({ dir, cacheDir: join(dir, 'cache'), spec });
  } finally {
    cleanup();
  }
}

const QUERIES = ['upcoming events in Paris', 'supprimer un événement', 'create an event', 'get an event by id', 'how many events per category'];

function summary(api: PreparedApi) {
  const { catalogue, search } = api;
  return {
    title: catalogue.title,
    servers: catalogue.servers,
    operations: catalogue.operations.map((o) => ({ id: o.id, call: o.call, method: o.method, path: o.path, params: o.parameters.map((p) => p.name) })),
    // A $ref'd schema keeps its component name (the cards print it).
    bodyNames: catalogue.operations.filter((o) => o.requestBody?.schema).map((o) => [o.id, catalogue.refNames.get(o.requestBody!.schema!) ?? null]),
    answers: QUERIES.map((q) => search.search(q, 5).map((h) => h.op.id)),
    byCall: catalogue.byCall(catalogue.operations[0]!.call)?.id,
    match: catalogue.match(catalogue.operations[0]!.method, catalogue.operations[0]!.path.replace(/\{[^}]+\}/g, 'x'))?.id,
  };
}

test('an unchanged document is restored from the cache, and answers exactly as when it was built', async () => {
  const { dir, cleanup } = tempDir('airlock-api-cache-');
  try {
    const cacheDir = join(dir, 'cache');
    const first = await prepareApi(DEMO_SPEC, { cacheDir });
    assert.equal(first.cache, 'miss');
    const second = await prepareApi(DEMO_SPEC, { cacheDir });
    assert.equal(second.cache, 'hit');
    assert.deepEqual(summary(second), summary(first));
    assert.ok(
      summary(second).bodyNames.some(([, name]) => name !== null),
      'some request body is a named component schema',
    );
    assert.equal(second.security === undefined, first.security === undefined);
    // What the index learnt from the document (its tag descriptions among it) comes back too.
    const learnt = (api: PreparedApi) => {
      const { tags, vocabulary } = api.search.toJSON();
      return { tags, vocabulary };
    };
    assert.ok(Object.keys(learnt(first).tags).length > 0, 'the document tag descriptions reached the index');
    assert.deepEqual(learnt(second), learnt(first));
    // The file is private to the user.
    const [file] = readdirSync(cacheDir).filter((f) => f.startsWith('api-'));
    assert.ok(file);
    if (process.platform !== 'win32') assert.equal(statSync(join(cacheDir, file)).mode & 0o777, 0o600);
  } finally {
    cleanup();
  }
});

test('an edited document is built afresh; a damaged or foreign cache file is ignored and replaced, never an error', async () => {
  await withCopy(async ({ cacheDir, spec }) => {
    assert.equal((await prepareApi(spec, { cacheDir })).cache, 'miss');
    assert.equal((await prepareApi(spec, { cacheDir })).cache, 'hit');

    // Edited: a new title, and the catalogue says so.
    writeFileSync(spec, readFileSync(spec, 'utf8').replace(/^(\s*title:\s*).*$/m, '$1Edited Events API'));
    const edited = await prepareApi(spec, { cacheDir });
    assert.equal(edited.cache, 'miss');
    assert.equal(edited.catalogue.title, 'Edited Events API');
    const again = await prepareApi(spec, { cacheDir });
    assert.equal(again.cache, 'hit');
    assert.equal(again.catalogue.title, 'Edited Events API');

    const [file] = readdirSync(cacheDir).filter((f) => f.startsWith('api-'));
    const cacheFile = join(cacheDir, file!);
    const good = readFileSync(cacheFile);
    const { body, header: goodHeader, magic } = unframe(good);
    for (const damage of [
      Buffer.from('not a cache'),
      Buffer.alloc(0),
      good.subarray(0, 200),
      good.subarray(200),
      framed(body, 'null', magic),
      // The right header over sections that are not the ones it describes.
      framed(Buffer.alloc(body.length, 0x20), goodHeader, magic),
      // One byte changed in a part read at once: the outlines, the schema names, the search index's words and postings.
      flipped(good, 'outline.0', 10),
      flipped(good, 'schemaNames'),
      flipped(good, 'recall.terms', 5),
      flipped(good, 'recall.postings', 5),
    ]) {
      writeFileSync(cacheFile, damage);
      const rebuilt = await prepareApi(spec, { cacheDir });
      assert.equal(rebuilt.cache, 'miss');
      assert.equal(rebuilt.catalogue.title, 'Edited Events API');
      assert.equal((await prepareApi(spec, { cacheDir })).cache, 'hit', 'the damaged file was rewritten');
    }

    // A cache written for another format version is not read.
    const current = unframe(readFileSync(cacheFile));
    const header = JSON.parse(current.header) as { format: number };
    writeFileSync(cacheFile, framed(current.body, JSON.stringify({ ...header, format: header.format + 1 }), current.magic));
    assert.equal((await prepareApi(spec, { cacheDir })).cache, 'miss');
  });
});

test('a part read later that fails its check is never used: the call says the store is damaged, and the next start prepares it again', async () => {
  await withCopy(async ({ cacheDir, spec }) => {
    const made = await prepareStore(spec, { cacheDir });
    assert.equal(made.cache, 'miss');
    const good = readFileSync(made.file);
    // One operation's details, and one operation's search features, each read only when first used.
    for (const section of ['details', 'features']) {
      writeFileSync(made.file, flipped(good, section, 3));
      const damaged: Error[] = [];
      const api = await openPreparedApi({ ...made, cache: 'hit' }, { onDamaged: (e) => damaged.push(e) });
      try {
        const first = api.catalogue.operations[0]!;
        const read = () => (section === 'details' ? first.parameters : api.search.search(first.summary ?? first.id, 50));
        assert.throws(read, (error: unknown) => error instanceof AirlockError && /damaged/.test(error.message) && error.kind === 'unavailable');
        assert.equal(damaged.length, 1, 'told once that the store is damaged');
        assert.equal(statSync(made.file, { throwIfNoEntry: false }), undefined, 'the damaged store was removed');
      } finally {
        api.close();
      }
      const again = await prepareApi(spec, { cacheDir });
      assert.equal(again.cache, 'miss', 'prepared again');
      assert.deepEqual(
        again.catalogue.operations[0]!.parameters.map((p) => p.name),
        (await prepareApi(spec, { cacheDir })).catalogue.operations[0]!.parameters.map((p) => p.name),
      );
      again.close();
    }
  });
});

test('a local document still the very file the cache was made from is not read again; a replacement with the old size and time is', async () => {
  await withCopy(async ({ cacheDir, spec }) => {
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(spec, hourAgo, hourAgo);
    let reads = 0;
    const readSource: typeof readDocumentSource = (source, options) => {
      reads++;
      return readDocumentSource(source, options);
    };
    // racyMs 0: the file's times are trusted as soon as they are older than its read (the default waits 2 s).
    const options = { cacheDir, readSource, racyMs: 0 };
    assert.equal((await prepareApi(spec, options)).cache, 'miss');
    assert.equal(reads, 1);
    const again = await prepareApi(spec, options);
    assert.equal(again.cache, 'hit');
    assert.equal(reads, 1, 'the document was not read again');

    // Replaced by a same-size edit, its old modification time put back (cp -p, rsync -t, touch -r): its change time moved, so it is read.
    const text = readFileSync(spec, 'utf8');
    const title = /^\s*title:\s*(.*)$/m.exec(text)![1]!;
    const sameLength = 'X'.repeat(title.length);
    writeFileSync(spec, text.replace(title, sameLength));
    utimesSync(spec, hourAgo, hourAgo);
    const seen = await prepareApi(spec, options);
    assert.equal(reads, 2);
    assert.equal(seen.cache, 'miss');
    assert.equal(seen.catalogue.title, sameLength);

    // By default, a document whose times are under 2 s old when read is always read and hashed, even when unchanged.
    const fresh = await prepareApi(spec, { cacheDir, readSource });
    assert.equal(reads, 3);
    assert.equal(fresh.cache, 'hit');
  });
});

test('a profile that allows external $refs is never cached: its bytes alone do not fix what it resolves to', async () => {
  const { dir, cleanup } = tempDir('airlock-api-cache-');
  try {
    const cacheDir = join(dir, 'cache');
    const prepared = await prepareApi(DEMO_SPEC, { cacheDir, allowExternalRefs: [dir] });
    assert.equal(prepared.cache, 'off');
    assert.equal((await prepareApi(DEMO_SPEC, { cacheDir, allowExternalRefs: [dir] })).cache, 'off');
    assert.equal((await prepareApi(DEMO_SPEC, { cacheDir, cache: false })).cache, 'off');
  } finally {
    cleanup();
  }
});
