// What `airlock stdio` does with the settings it was given (flags, or their
// AIRLOCK_* twins in the client's environment) when it joins a companion that
// already runs: nothing is ignored in silence. A few are the joining process's
// own and are honoured (which companion, its own log level, the idle time of
// a companion it starts); every other one belongs to the companion every
// client shares, so it is honoured only when the companion already runs with
// that value, and otherwise refused at start with one line saying why and
// what to do.
import { settingByKey, type ResolvedSettings, type Settings } from '../core/config/settings.ts';
import { formatAuthScheme } from '../core/config/auth.ts';

/** Settings the joining process honours itself: which data dir (so which companion), its own log, a background start's idle time. */
export const JOINING_PROCESS_SETTINGS: ReadonlySet<string> = new Set(['dataDir', 'logLevel', 'exitWhenIdle']);

/** Settings that say which API the companion serves (one at a time). */
const API_SETTINGS = new Set(['profile', 'spec', 'baseUrl', 'auth', 'refreshSpec']);

/** One setting the joining process was given, and how. */
export interface GivenSetting {
  key: string;
  value: unknown;
  source: 'flag' | 'env';
}

/** What the running companion uses: its settings in effect (as settings.get shows them) and the profile it serves. */
export interface RunningCompanion {
  pid: number;
  profile: string;
  values: Record<string, unknown>;
}

/** The settings given as flags or environment variables that the joining process does not honour itself. */
export function givenCompanionSettings(resolved: Pick<ResolvedSettings, 'settings' | 'sources'>): GivenSetting[] {
  const out: GivenSetting[] = [];
  for (const [key, source] of Object.entries(resolved.sources)) {
    if ((source !== 'flag' && source !== 'env') || JOINING_PROCESS_SETTINGS.has(key)) continue;
    out.push({ key, value: (resolved.settings as unknown as Record<string, unknown>)[key], source });
  }
  return out;
}

/** A value as settings.get shows it (the auth scheme in its written form), for comparing. */
function shown(key: string, value: unknown): string {
  if (key === 'auth' && value && typeof value === 'object') return formatAuthScheme(value as Settings['auth'] & object);
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/**
 * One line for each given setting the running companion does not already use: which flag (or variable),
 * what the companion uses instead, and what to do. Empty when every one is honoured.
 */
export function unhonouredSettings(given: readonly GivenSetting[], running: RunningCompanion): string[] {
  const lines: string[] = [];
  for (const g of given) {
    const def = settingByKey(g.key);
    if (!def) continue;
    const name = g.source === 'flag' ? def.flag : def.env;
    const current = g.key === 'profile' ? running.profile : running.values[g.key];
    if (shown(g.key, g.value) === shown(g.key, current)) continue;
    const asked = `${name} ${shown(g.key, g.value)}`;
    const companion = `the running companion (pid ${running.pid})`;
    if (API_SETTINGS.has(g.key)) {
      lines.push(
        `${asked}: ${companion} serves profile '${running.profile}' to every client, one API at a time. Start it with this API instead (stop it, then \`airlock serve ${def.flag} …\`), or run this client with --in-process for a private companion.`,
      );
    } else if (g.key === 'engine' || g.key === 'egress' || g.key === 'allowUnrestrictedEgress') {
      lines.push(
        `${asked}: ${companion} runs ${g.key === 'allowUnrestrictedEgress' ? 'without that acknowledgement' : `${shown(g.key, current)}`} for every client. Change it on its Engine screen, or run this client with --in-process for a private companion.`,
      );
    } else {
      lines.push(
        `${asked}: ${companion} uses ${shown(g.key, current)} for every client. Change it in its Settings (\`airlock open\`, or settings.json in the data dir), or run this client with --in-process for a private companion.`,
      );
    }
  }
  return lines;
}
