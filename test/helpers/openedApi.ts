// A served API for tests of the served set (no document, no network): a
// profile, a one-operation catalogue with its client shape, a gate that
// answers 200, and a close that says it was called.
import { buildCatalogue } from '../../main/core/openapi/catalogue.ts';
import { apiIdentifier } from '../../main/core/profiles/apiIdentifier.ts';
import { clientShape, clientShapeJson } from '../../main/core/sandbox/guestClient.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import type { EgressGate } from '../../main/core/egress/egressGate.ts';
import type { OpenedApi } from '../../main/core/runtime/servedApis.ts';
import type { Profile } from '../../main/core/profiles/profile.ts';

export const testProfile = (name: string, extra: Partial<Profile> = {}): Profile => ({
  name,
  spec: `${name}.json`,
  policy: 'ask',
  readOnly: false,
  allowPrivateNetwork: false,
  mutations: [],
  origin: 'file',
  ...extra,
});

/** API `name`, served: `things.list` its one operation; `onClose` hears when it is closed. */
export function openedApi(name: string, options: { gate?: EgressGate; onClose?: () => void } = {}): OpenedApi {
  const catalogue = buildCatalogue({
    openapi: '3.1.0',
    info: { title: name, version: '1' },
    servers: [{ url: 'https://x.test' }],
    paths: { '/things': { get: { operationId: 'things.list', responses: { 200: { description: 'ok' } } } } },
  } as never);
  return {
    api: {
      profile: testProfile(name),
      id: apiIdentifier(name),
      baseUrl: 'https://x.test',
      auth: { type: 'none' },
      catalogue,
      search: undefined as never,
      origin: { kind: 'url', location: 'x' },
      readyMs: 1,
      cache: 'off',
      clientNames: ['api', apiIdentifier(name)],
      shape: clientShape(clientShapeJson(catalogue.operations)),
    },
    credentials: { invalidate: () => undefined } as never,
    gate: options.gate ?? { call: async () => ({ data: null, error: null, status: 200 }), isMutation: () => false, redactor: async () => createRedactor([]) },
    close: async () => options.onClose?.(),
  };
}
