// The built-in profiles. `demo` is the default: an events API Airlock serves
// itself on loopback, so a first run needs no account and no network.
// `openagenda` is the OpenAgenda v3 API, whose contract is fetched from
// OpenAgenda's public repository and cached in the data dir.
import type { Profile } from './profile.ts';
import { DEMO_SPEC } from './profileDefaults.ts';

export const OPENAGENDA_SPEC_URL = 'https://raw.githubusercontent.com/OpenAgenda/oa-public/main/api-spec/openapi.yaml';

export const PRESETS: Record<string, Profile> = {
  demo: {
    name: 'demo',
    description: 'Offline demo events API served by Airlock on loopback (no account, no network)',
    spec: DEMO_SPEC,
    auth: { type: 'none' },
    policy: 'ask',
    readOnly: false,
    allowPrivateNetwork: false,
    mutations: [],
    origin: 'preset',
  },
  openagenda: {
    name: 'openagenda',
    description: 'OpenAgenda v3 API (events, agendas, locations)',
    spec: OPENAGENDA_SPEC_URL,
    baseUrl: 'https://api.openagenda.com/v3',
    auth: { type: 'bearer' },
    alias: 'oa',
    // Its words for what requests say: when an event happens is its `relative` filter, an id from elsewhere its `ext`
    // id, whether it is free its registration conditions.
    words: {
      upcoming: ['relative'],
      future: ['relative'],
      past: ['relative'],
      current: ['relative'],
      external: ['ext'],
      free: ['registration'],
    },
    // Its document comes from the network: a person turns it on (`airlock apis enable openagenda`).
    enabled: false,
    policy: 'ask',
    readOnly: false,
    allowPrivateNetwork: false,
    mutations: [],
    origin: 'preset',
  },
};
