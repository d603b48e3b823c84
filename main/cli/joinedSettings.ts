// What `airlock stdio` does with the settings it was given (flags, or their
// AIRLOCK_* twins in the client's environment) when it joins a companion that
// already runs: nothing is ignored in silence. A few are the joining process's
// own and are honoured (which companion, its own log level, the idle time of
// a companion it starts); every other one belongs to the companion every
// client shares, so it is honoured only when the companion already runs with
// that value, and otherwise refused at start with one line saying why and
// what to do. `--profile NAME` is honoured as the session's scope when the
// companion serves that API (as `--api NAME`); the other API settings
// (`--spec`, `--base-url`, `--auth`) describe an API, which is added once for
// every client (`airlock apis add`), so a joining client is told that line.
import { settingByKey, type Settings } from '../core/config/settings.ts';
import type { ResolvedSettings } from '../core/config/resolveSettings.ts';
import { formatAuthScheme } from '../core/config/auth.ts';

/** Settings the joining process honours itself: which data dir (so which companion), its own log, a background start's idle time. */
export const JOINING_PROCESS_SETTINGS: ReadonlySet<string> = new Set(['dataDir', 'logLevel', 'exitWhenIdle']);

/** Settings that describe an API: added once for every client, never brought by a joining one. */
const API_SETTINGS = new Set(['spec', 'baseUrl', 'auth', 'refreshSpec']);

/** One setting the joining process was given, and how. */
export interface GivenSetting {
  key: string;
  value: unknown;
  source: 'flag' | 'env';
}

/** What the running companion uses: its settings in effect (as settings.get shows them) and the APIs it serves. */
export interface RunningCompanion {
  pid: number;
  /** The names of the APIs it serves. */
  apis: string[];
  values: Record<string, unknown>;
}

/** What a joining stdio does with what it was given: the lines refusing what cannot be honoured, and the scope --profile asks for. */
export interface JoinedVerdict {
  refused: string[];
  /** `--profile NAME` (or AIRLOCK_PROFILE) of an API the companion serves: the session reaches that API. */
  scope?: string[];
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
 * what the companion uses instead, and what to do; and the scope `--profile` asks for. Nothing refused: every
 * given setting is honoured.
 */
export function joinedVerdict(given: readonly GivenSetting[], running: RunningCompanion): JoinedVerdict {
  const refused: string[] = [];
  let scope: string[] | undefined;
  const companion = `the running companion (pid ${running.pid})`;
  for (const g of given) {
    const def = settingByKey(g.key);
    if (!def) continue;
    const name = g.source === 'flag' ? def.flag : def.env;
    const asked = `${name} ${shown(g.key, g.value)}`;
    if (g.key === 'profile') {
      const profile = String(g.value);
      if (running.apis.includes(profile)) scope = [profile];
      else
        refused.push(
          `${asked}: ${companion} does not serve the API '${profile}' (it serves ${running.apis.join(', ') || 'none'}). Enable it for every client (\`airlock apis enable ${profile}\`, or the APIs screen), or run this client with --in-process for a private companion.`,
        );
      continue;
    }
    const current = running.values[g.key];
    if (shown(g.key, g.value) === shown(g.key, current)) continue;
    if (API_SETTINGS.has(g.key)) {
      refused.push(
        g.key === 'spec'
          ? `${asked}: a joining client does not bring its own API to ${companion}. Add it once for every client (\`airlock apis add <name> --spec ${shown(g.key, g.value)}\`), then give this client \`--api <name>\`; or run it with --in-process for a private companion.`
          : `${asked}: an API's ${g.key === 'refreshSpec' ? 'document is reloaded' : 'settings are changed'} once for every client of ${companion}: on its APIs screen, or with \`airlock apis add\`; or run this client with --in-process for a private companion.`,
      );
    } else if (g.key === 'engine' || g.key === 'egress' || g.key === 'allowUnrestrictedEgress') {
      refused.push(
        `${asked}: ${companion} runs ${g.key === 'allowUnrestrictedEgress' ? 'without that acknowledgement' : `${shown(g.key, current)}`} for every client. Change it on its Engine screen, or run this client with --in-process for a private companion.`,
      );
    } else {
      refused.push(
        `${asked}: ${companion} uses ${shown(g.key, current)} for every client. Change it in its Settings (\`airlock open\`, or settings.json in the data dir), or run this client with --in-process for a private companion.`,
      );
    }
  }
  return { refused, ...(scope ? { scope } : {}) };
}
