// The operation card tells the truth about how to call it: the body's media
// type and how to pass it (and the card's own example, run in the sandbox,
// goes on the wire as the document says), values listed only in a
// description, no body on a GET or DELETE unless the document defines one,
// descriptions as plain text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import { renderSearchResults } from '../../main/core/search/renderResults.ts';
import { schemaShape } from '../../main/core/openapi/schemaShape.ts';
import { createQuickJsEngine } from '../../main/core/sandbox/quickjs/quickjsEngine.ts';
import { bodyDocuments, captureRun } from '../helpers/captureApi.ts';

const docs = bodyDocuments();
const catalogues = docs.catalogues;

/** The full card of one operation, as search_docs renders its top hit. */
function card(catalogue: Catalogue, id: string): string {
  const op = catalogue.byId(id);
  assert.ok(op, id);
  return renderSearchResults(id, [{ op, score: 1 }], catalogue);
}

/** The card's example, as code to run. */
function exampleOf(text: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf('Example:');
  assert.ok(start >= 0, text);
  return lines
    .slice(start + 1)
    .filter((l) => l.startsWith('  '))
    .map((l) => l.slice(2))
    .join('\n');
}

const synthetic = (paths: Record<string, unknown>) => buildCatalogue({ openapi: '3.0.3', info: { title: 'Shop', version: '1' }, paths: paths as never });

test('a form or multipart card says the media type and how to pass the body, and its own example, run in the sandbox, goes on the wire as the document says', async () => {
  const customers = card(catalogues.stripe!, 'PostCustomers');
  assert.match(customers, /Body \(application\/x-www-form-urlencoded\): \{ address\?: /);
  assert.match(customers, /\n {2}Pass a plain object; Airlock sends it form-encoded: objects and arrays nest as key\[sub\]=v, key\[0\]=v\.\n/);
  const files = card(catalogues.stripe!, 'PostFiles');
  assert.match(files, /Body \(multipart\/form-data, required\): \{ expand\?: string\[\]; file: string; /);
  assert.match(files, /a file is \{ filename, contentType, base64 \} \(or text instead of base64\)/);
  assert.match(files, /body: \{ file: \{ filename: "file\.txt", contentType: "text\/plain", text: "…" \}, purpose: "account_requirement" \}/);
  const twilio = card(catalogues.twilio!, 'CreateCall');
  assert.match(twilio, /Pass a plain object; Airlock sends it form-encoded: arrays repeat the key \(key=a&key=b\)\./);
  const raw = card(catalogues.github!, 'markdown/render-raw');
  assert.match(
    raw,
    /Body \(text\/plain\): string\n {2}Pass the text as a string\.\n {2}Also takes text\/x-markdown: set headers: \{ "content-type": … \} to send one\./,
  );
  assert.doesNotMatch(card(catalogues.github!, 'issues/create'), /Pass |Also takes/, 'a JSON body needs no explanation');

  // The card's example is the call: run as it stands, it sends what the document specifies.
  const shop = synthetic({
    '/charges': {
      post: {
        operationId: 'charges.create',
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['amount', 'items'],
                properties: {
                  amount: { type: 'integer' },
                  items: { type: 'array', items: { type: 'object', properties: { price: { type: 'string' }, quantity: { type: 'integer' } } } },
                  metadata: { type: 'object', additionalProperties: { type: 'string' } },
                },
              },
              encoding: { items: { style: 'deepObject', explode: true }, metadata: { style: 'deepObject', explode: true } },
              example: { amount: 2000, items: [{ price: 'price_1', quantity: 2 }], metadata: { order: '6735' } },
            },
          },
        },
        responses: { 200: { description: 'ok' } },
      },
    },
    '/documents': {
      post: {
        operationId: 'documents.upload',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: { type: 'object', required: ['file', 'meta'], properties: { file: { type: 'string', format: 'binary' }, meta: { type: 'object' } } },
            },
          },
        },
        responses: { 200: { description: 'ok' } },
      },
    },
  });
  const engine = createQuickJsEngine();
  try {
    for (const [id, check] of [
      ['charges.create', (body: Buffer) => assert.equal(body.toString(), 'amount=2000&items[0][price]=price_1&items[0][quantity]=2&metadata[order]=6735')],
      [
        'documents.upload',
        (body: Buffer) => {
          assert.match(body.toString(), /name="file"; filename="file\.txt"\r\nContent-Type: text\/plain\r\n\r\n…\r\n/);
          assert.match(body.toString(), /name="meta"\r\nContent-Type: application\/json\r\n\r\n\{\}\r\n/);
        },
      ],
    ] as const) {
      const text = card(shop, id);
      const op = shop.byId(id)!;
      const gate = docs.api.gate(shop);
      const before = docs.api.received.length;
      const outcome = await engine.run({
        runId: id,
        code: exampleOf(text),
        client: { operations: [{ operationId: op.id, callPath: op.callPath }], globals: ['api'] },
        limits: { timeoutMs: 10_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024 },
        callApi: (request) => gate.call(request, captureRun()),
      });
      assert.ok(outcome.ok, `${id}: ${JSON.stringify(outcome)}\n${text}`);
      assert.equal(docs.api.received.length, before + 1);
      check(docs.api.received.at(-1)!.body);
    }
  } finally {
    await engine.close();
  }
});

test('values a parameter or field lists only in its description are on the card like an enum', () => {
  const param = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }, required = false) => ({
    name,
    in: 'query',
    required,
    description,
    schema,
  });
  const cat = synthetic({
    '/calls': {
      get: {
        operationId: 'calls.list',
        parameters: [
          param('order', 'Sort order. One of `asc` or `desc`.', { type: 'string' }, true),
          param('status', 'The status. Can be: `queued`, `ringing`, `in-progress`, or `completed`.'),
          param('engine', '<p>The engine.</p><p>Valid values: <code>memcached</code> | <code>redis</code></p>'),
          param('layout', 'The layout. Valid values are:\n\n- `native`\n- `csv_classic`: one line per row\n- `xml`'),
          param('units', 'Unit system. Possible values: metric, imperial.'),
          param('events', 'Events to send. Can be `initiated`, `ringing` or `answered`.', { type: 'array', items: { type: 'string' } }),
          // Not values of this parameter: the sentence is about another field, or it names fields, or the type is not a string.
          param('file', "The ID of the file. The file's `purpose` must be one of the following: `business_icon`, `dispute_evidence`."),
          param('to', 'You must provide either `to_contact` or `to_channel`.'),
          param('pick', 'One of `a` or `b` is required.'),
          param('record', 'Whether to record. Can be: `true` or `false`.', { type: 'boolean' }),
          param('listed', 'One of `x`, `y`.', { type: 'string', enum: ['x', 'y', 'z'] }),
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
  });
  const text = card(cat, 'calls.list');
  assert.match(text, /\n {2}order \(required\): "asc" \| "desc" — /);
  assert.match(text, /\n {2}status: "queued" \| "ringing" \| "in-progress" \| "completed" — /);
  assert.match(text, /\n {2}engine: "memcached" \| "redis" — /);
  assert.match(text, /\n {2}layout: "native" \| "csv_classic" \| "xml" — /);
  assert.match(text, /\n {2}units: "metric" \| "imperial" — /);
  assert.match(text, /\n {2}events: \("initiated" \| "ringing" \| "answered"\)\[\] — /);
  assert.match(text, /\n {2}file: string — /);
  assert.match(text, /\n {2}to: string — /);
  assert.match(text, /\n {2}pick: string — /);
  assert.match(text, /\n {2}record: boolean — /);
  assert.match(text, /\n {2}listed: "x" \| "y" \| "z" — /, "the schema's own enum wins");
  assert.match(text, /query: \{ order: "asc" \}/, 'the example takes a listed value');
  // Body fields too (Twilio lists StatusCallbackEvent's values in its description).
  const createCall = catalogues.twilio!.byId('CreateCall')!.requestBody!.schema!;
  assert.equal(schemaShape(createCall.properties.StatusCallbackEvent), '("initiated" | "ringing" | "answered" | "completed")[]');
  assert.match(schemaShape(createCall, { maxProps: 40 }), /; StatusCallbackEvent\?: \("initiated" \| "ringing" \| "answered" \| "completed"\)\[\]; /);
});

test('GET and DELETE cards show no body unless the document defines one', () => {
  // Stripe's GETs declare a form body that can hold nothing (no properties, additionalProperties: false).
  const list = card(catalogues.stripe!, 'GetCustomers');
  assert.doesNotMatch(list, /Body|body/);
  assert.match(list, /Call: await api\.GetCustomers\(\{ query: \{ … \} \}\)/);
  const get = card(catalogues.stripe!, 'DeleteCustomersCustomer');
  assert.doesNotMatch(get, /Body|body/);
  // A DELETE whose document defines a body shows it, in the call and the example.
  const del = card(catalogues.stripe!, 'DeleteCustomersCustomerCardsId');
  assert.match(del, /Call: await api\.DeleteCustomersCustomerCardsId\(\{ path: \{ customer, id \}, body \}\)/);
  assert.match(del, /Body \(application\/x-www-form-urlencoded\): \{ expand\?: string\[\] \}/);
  assert.match(del, /\n {4}body: \{ \/\* see Body above \*\/ \},\n/);
  // And a GET without any requestBody has none.
  assert.doesNotMatch(card(catalogues.github!, 'issues/get'), /Body|body/);
});

test('card descriptions are plain text: HTML and Markdown stripped, links kept as text', () => {
  const cat = synthetic({
    '/events': {
      get: {
        operationId: 'events.list',
        summary: 'List **events**',
        description: 'Returns <b>all</b> the `events`. See [paging](https://docs.test/paging) &amp; <a href="https://docs.test/filters">filters</a>.',
        parameters: [
          {
            name: 'when',
            in: 'query',
            description: '<p>Only <i>upcoming</i> ones, see <a href="https://docs.test/when">when</a>.</p>',
            schema: { type: 'string' },
          },
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
  });
  const text = card(cat, 'events.list');
  assert.match(text, /\nList events\. Returns all the events\. See paging \(https:\/\/docs\.test\/paging\) & filters \(https:\/\/docs\.test\/filters\)\.\n/);
  assert.match(text, /when: string — Only upcoming ones, see when \(https:\/\/docs\.test\/when\)\./);
  assert.doesNotMatch(text, /<[a-z]|\*\*|`events`|&amp;/);
});
