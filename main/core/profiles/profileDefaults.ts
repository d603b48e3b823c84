// What a profile is without reading its schema: the demo's spec, and whether
// a profile is served. No zod here (an initialize answered before the core
// loads reads these: profilePeek.ts).

/** The spec of the built-in demo API (Airlock serves it itself). */
export const DEMO_SPEC = 'airlock:demo';

/** The profile served before several APIs could be, when none was chosen. */
const DEFAULT_PROFILE = 'demo';

/**
 * Whether the companion serves this profile's API. A profile file from before APIs were served at once has no
 * `enabled`: only the default one (the demo) is served, as it was; the others stay off until a person enables them,
 * so an upgrade never starts sending keys to APIs that used to sit unused.
 */
export function isEnabled(p: { enabled?: boolean | undefined; name: string }): boolean {
  return p.enabled ?? p.name === DEFAULT_PROFILE;
}
