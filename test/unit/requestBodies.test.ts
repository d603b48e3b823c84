// Request bodies as the document says, checked on the wire: the egress gate
// sends to a loopback API that keeps the raw bytes it receives. Form bodies
// follow the Encoding Object (Stripe's deepObject fields, Twilio's repeated
// keys), multipart bodies carry fields, JSON parts and files, JSON and text
// go as they are, and what cannot be written is refused with what to pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalogue, type Catalogue } from '../../main/core/openapi/catalogue.ts';
import type { ApiCallRequest, ApiCallResult } from '../../main/core/sandbox/engine.ts';
import { bodyDocuments, type Captured } from '../helpers/captureApi.ts';

const docs = bodyDocuments();
const catalogues = docs.catalogues;

const send = (catalogue: Catalogue, call: ApiCallRequest) => docs.api.send(catalogue, call);
const errorOf = (result: ApiCallResult) => (result.error as { code: string; message: string } | null) ?? { code: '', message: '' };

function synthetic(paths: Record<string, unknown>): Catalogue {
  return buildCatalogue({ openapi: '3.1.0', info: { title: 'Bodies', version: '1' }, paths: paths as never });
}

test("Stripe form bodies go out as Stripe's document says: deepObject fields nest as a[b]=v, arrays by index, scalars as they are", async () => {
  const stripe = catalogues.stripe!;
  const { got, result } = await send(stripe, {
    operationId: 'PostCustomers',
    body: {
      email: 'ada lovelace+test@example.com',
      metadata: { order_id: '6735', 'odd]key': 'a&b=c' },
      expand: ['default_source', 'tax'],
      address: { city: 'Paris', line1: '1 rue de Rivoli' },
      invoice_settings: { custom_fields: [{ name: 'VAT', value: 'FR 12' }] },
      balance: -500,
      tax_exempt: 'none',
    },
  });
  assert.equal(result.status, 200, JSON.stringify(result.error));
  assert.equal(got!.method, 'POST');
  assert.equal(got!.url, '/v1/customers');
  assert.equal(got!.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.equal(
    got!.body.toString('utf8'),
    'email=ada%20lovelace%2Btest%40example.com' +
      '&metadata[order_id]=6735&metadata[odd%5Dkey]=a%26b%3Dc' +
      '&expand[0]=default_source&expand[1]=tax' +
      '&address[city]=Paris&address[line1]=1%20rue%20de%20Rivoli' +
      '&invoice_settings[custom_fields][0][name]=VAT&invoice_settings[custom_fields][0][value]=FR%2012' +
      '&balance=-500&tax_exempt=none',
  );

  // Arrays of objects keep each object's fields together by index; "" (Stripe's way to clear a field) is sent empty.
  const sub = await send(stripe, {
    operationId: 'PostSubscriptions',
    body: { customer: 'cus_1', items: [{ price: 'price_1', quantity: 2 }, { price: 'price_2' }], metadata: '' },
  });
  assert.equal(sub.got!.body.toString(), 'customer=cus_1&items[0][price]=price_1&items[0][quantity]=2&items[1][price]=price_2&metadata=');

  // Stripe's DELETEs take a form body too (expand).
  const del = await send(stripe, { operationId: 'DeleteCustomersCustomerCardsId', path: { customer: 'cus_1', id: 'card_1' }, body: { expand: ['customer'] } });
  assert.equal(del.got!.method, 'DELETE');
  assert.equal(del.got!.body.toString(), 'expand[0]=customer');

  // Not an object: refused before anything is sent.
  const bad = await send(stripe, { operationId: 'PostCustomers', body: 'email=x' });
  assert.equal(bad.got, undefined);
  assert.match(errorOf(bad.result).message, /PostCustomers takes a form body: pass a plain object of fields/);
});

test('Twilio form bodies (no encoding object): arrays repeat the key, scalars as text; objects would go as JSON text', async () => {
  const { got, result } = await send(catalogues.twilio!, {
    operationId: 'CreateCall',
    path: { AccountSid: `AC${'0'.repeat(32)}` },
    body: { To: '+15558675310', From: '+15017122661', Url: 'https://example.com/twiml?x=1', StatusCallbackEvent: ['initiated', 'answered'], Record: true },
  });
  assert.equal(result.status, 200, JSON.stringify(result.error));
  assert.equal(
    got!.body.toString(),
    'To=%2B15558675310&From=%2B15017122661&Url=https%3A%2F%2Fexample.com%2Ftwiml%3Fx%3D1&StatusCallbackEvent=initiated&StatusCallbackEvent=answered&Record=true',
  );

  // The Encoding Object's defaults (OpenAPI 3.0.4/3.1.1): an object field without style is JSON text;
  // with style form (explode) its fields spread; contentType application/json makes the whole value JSON, even a string.
  const cat = synthetic({
    '/forms': {
      post: {
        operationId: 'forms.create',
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: {
                  address: { type: 'object' },
                  spread: { type: 'object' },
                  id: { type: 'string' },
                  tags: { type: 'array' },
                  list: { type: 'array' },
                },
              },
              encoding: {
                spread: { style: 'form' },
                id: { contentType: 'application/json' },
                tags: { style: 'form', explode: false },
                list: { contentType: 'application/json' },
              },
            },
          },
        },
        responses: { 200: { description: 'ok' } },
      },
    },
  });
  const form = await send(cat, {
    operationId: 'forms.create',
    body: { address: { city: 'Lyon', zip: '69001' }, spread: { a: '1', b: '2' }, id: 'f81d', tags: ['x', 'y z'], list: [1, 2] },
  });
  assert.equal(
    form.got!.body.toString(),
    'address=%7B%22city%22%3A%22Lyon%22%2C%22zip%22%3A%2269001%22%7D&a=1&b=2&id=%22f81d%22&tags=x%2Cy%20z&list=%5B1%2C2%5D',
  );
});

/** Parses a multipart body with the platform's own parser (undici), independent of ours. */
async function parts(got: Captured): Promise<FormData> {
  return new Response(new Uint8Array(got.body), { headers: { 'content-type': got.headers['content-type']! } }).formData();
}

test('multipart/form-data (Stripe file upload): a file from base64 with its name and type, text fields, deepObject fields as bracketed parts, exact bytes', async () => {
  const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d]);
  const call: ApiCallRequest = {
    operationId: 'PostFiles',
    body: {
      purpose: 'dispute_evidence',
      file: { filename: 'receipt "1".png', contentType: 'image/png', base64: bytes.toString('base64') },
      file_link_data: { create: true, metadata: { order: '6735' } },
      expand: ['file_link'],
    },
  };
  const { got, result } = await send(catalogues.stripe!, call);
  assert.equal(result.status, 200, JSON.stringify(result.error));
  const type = got!.headers['content-type']!;
  const boundary = /^multipart\/form-data; boundary=([\w-]+)$/.exec(type)?.[1];
  assert.ok(boundary, type);
  const expected = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\ndispute_evidence\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="receipt %221%22.png"\r\nContent-Type: image/png\r\n\r\n`),
    bytes,
    Buffer.from('\r\n'),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file_link_data[create]"\r\n\r\ntrue\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file_link_data[metadata][order]"\r\n\r\n6735\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="expand[0]"\r\n\r\nfile_link\r\n`),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  assert.deepEqual(got!.body, expected);

  const form = await parts(got!);
  const file = form.get('file') as File;
  assert.equal(file.name, 'receipt "1".png');
  assert.equal(file.type, 'image/png');
  assert.deepEqual(Buffer.from(await file.arrayBuffer()), bytes);
  assert.equal(form.get('file_link_data[metadata][order]'), '6735');

  // The same call gives the same bytes (the boundary comes from the content), so an approval's hash stays valid on a retry.
  const again = await send(catalogues.stripe!, call);
  assert.deepEqual(again.got!.body, got!.body);
});

test('multipart/form-data: objects as JSON parts, per-field content types, one part per array item, a string for a binary field is a file', async () => {
  const cat = synthetic({
    '/documents': {
      post: {
        operationId: 'documents.create',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['doc'],
                properties: {
                  meta: { type: 'object', properties: { title: { type: 'string' } } },
                  doc: { type: 'string', format: 'binary' },
                  attachments: { type: 'array', items: { type: 'string', format: 'binary' } },
                  tags: { type: 'array', items: { type: 'string' } },
                  note: { type: 'string' },
                  feed: { type: 'string' },
                },
              },
              encoding: { doc: { contentType: 'text/markdown' }, note: { contentType: 'application/json' }, feed: { contentType: 'application/xml' } },
            },
          },
        },
        responses: { 201: { description: 'ok' } },
      },
    },
  });
  const { got, result } = await send(cat, {
    operationId: 'documents.create',
    body: {
      meta: { title: 'Été' },
      doc: '# Hello\n',
      attachments: [
        { filename: 'a.txt', text: 'first' },
        { filename: 'b.bin', base64: 'AAEC' },
      ],
      tags: ['x', 'y'],
      note: 'quoted',
      feed: '<feed/>',
    },
  });
  assert.equal(result.status, 200, JSON.stringify(result.error));
  const text = got!.body.toString('latin1');
  assert.match(got!.body.toString('utf8'), /name="meta"\r\nContent-Type: application\/json\r\n\r\n\{"title":"Été"\}\r\n/, 'a JSON part, in UTF-8');
  assert.match(text, /name="doc"; filename="doc"\r\nContent-Type: text\/markdown\r\n\r\n# Hello\n\r\n/, 'a string for a binary field is a file');
  assert.match(text, /name="attachments"; filename="a.txt"\r\nContent-Type: application\/octet-stream\r\n\r\nfirst\r\n/);
  assert.ok(text.includes('name="attachments"; filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001\u0002\r\n'), 'bytes from base64');
  assert.match(text, /name="tags"\r\n\r\nx\r\n--[\w-]+\r\nContent-Disposition: form-data; name="tags"\r\n\r\ny\r\n/, 'one part per item');
  assert.match(text, /name="note"\r\nContent-Type: application\/json\r\n\r\n"quoted"\r\n/);
  assert.match(text, /name="feed"\r\nContent-Type: application\/xml\r\n\r\n<feed\/>\r\n/);
  const form = await parts(got!);
  assert.deepEqual(form.getAll('tags'), ['x', 'y']);
  assert.equal((form.getAll('attachments') as File[]).length, 2);

  // What cannot be written is refused, saying what to pass, and nothing is sent.
  for (const [body, message] of [
    [{ doc: 'x', feed: { a: 1 } }, /field 'feed' is sent as application\/xml: pass its text as a string/],
    [{ doc: { base64: 'not base64!' } }, /file field 'doc': base64 is not valid base64/],
    [{ doc: { text: 'a', base64: 'AA==' } }, /pass either text or base64, not both/],
    [{ doc: { text: 'a', contentType: 'text/plain\r\nX-Evil: 1' } }, /contentType must be a media type/],
    [['not', 'an', 'object'], /takes a multipart\/form-data body: pass a plain object/],
  ] as const) {
    const refused = await send(cat, { operationId: 'documents.create', body });
    assert.equal(refused.got, undefined, JSON.stringify(body));
    assert.equal(errorOf(refused.result).code, 'airlock_invalid_request');
    assert.match(errorOf(refused.result).message, message);
  }
});

test('JSON and +json bodies go as JSON; a content-type header picks another offered media type, never one the document does not offer', async () => {
  const cat = synthetic({
    '/things/{id}': {
      patch: {
        operationId: 'things.update',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': { schema: { type: 'object' } },
            'application/merge-patch+json': { schema: { type: 'object' } },
          },
        },
        responses: { 200: { description: 'ok' } },
      },
    },
  });
  assert.equal(cat.byId('things.update')!.requestBody!.contentType, 'application/merge-patch+json', 'JSON is the default when offered');
  assert.deepEqual(
    cat.byId('things.update')!.requestBody!.content.map((m) => m.contentType),
    ['application/merge-patch+json', 'application/x-www-form-urlencoded'],
  );
  const json = await send(cat, { operationId: 'things.update', path: { id: '1' }, body: { venue: 'Hangar 32', tags: ['a'] } });
  assert.equal(json.got!.headers['content-type'], 'application/merge-patch+json');
  assert.equal(json.got!.body.toString(), '{"venue":"Hangar 32","tags":["a"]}');

  const form = await send(cat, {
    operationId: 'things.update',
    path: { id: '1' },
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: { venue: 'Hangar 32', tags: ['a', 'b'] },
  });
  assert.equal(form.got!.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.equal(form.got!.body.toString(), 'venue=Hangar%2032&tags=a&tags=b');

  const other = await send(cat, { operationId: 'things.update', path: { id: '1' }, headers: { 'content-type': 'text/csv' }, body: 'a,b' });
  assert.equal(other.got, undefined);
  assert.match(errorOf(other.result).message, /things\.update takes application\/merge-patch\+json or application\/x-www-form-urlencoded, not 'text\/csv'/);
});

test("text and byte bodies (GitHub's raw Markdown and release assets): a string as is, bytes from base64 with their own type; an object is refused", async () => {
  const github = catalogues.github!;
  const md = await send(github, { operationId: 'markdown/render-raw', body: '# Été **bold**' });
  assert.equal(md.got!.headers['content-type'], 'text/plain');
  assert.equal(md.got!.body.toString('utf8'), '# Été **bold**');
  const asMarkdown = await send(github, { operationId: 'markdown/render-raw', headers: { 'content-type': 'text/x-markdown' }, body: '*hi*' });
  assert.equal(asMarkdown.got!.headers['content-type'], 'text/x-markdown');

  const viaText = await send(github, { operationId: 'markdown/render-raw', body: { text: 'Hello' } });
  assert.equal(viaText.got!.body.toString(), 'Hello', '{ text } is the same as the string');
  const object = await send(github, { operationId: 'markdown/render-raw', body: { markdown: 'Hello' } });
  assert.equal(object.got, undefined);
  assert.match(errorOf(object.result).message, /takes a text\/plain body: pass it as a string, or as \{ base64: "…" \} for bytes/);

  const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff]);
  const asset = await send(github, {
    operationId: 'repos/upload-release-asset',
    path: { owner: 'o', repo: 'r', release_id: 1 },
    query: { name: 'a.zip' },
    body: { base64: zip.toString('base64'), contentType: 'application/zip' },
  });
  assert.equal(asset.result.status, 200, JSON.stringify(asset.result.error));
  assert.equal(asset.got!.headers['content-type'], 'application/zip', 'application/octet-stream takes the bytes’ own type');
  assert.deepEqual(asset.got!.body, zip);
});
