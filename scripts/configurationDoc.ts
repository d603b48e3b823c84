// Writes docs/configuration.md from the settings table
// (main/core/config/settings.ts), so the page can never disagree with the
// code: every setting's flag, env twin, settings.json key, default, allowed
// values and when a change applies come from its row. The intro and the few
// notes a row cannot carry are written here, by hand.
//
//   node scripts/configurationDoc.ts          write docs/configuration.md
//   node scripts/configurationDoc.ts --check  exit 1, with one line, if the file is stale
//
// test/unit/readme.test.ts fails when the file is not what this writes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SETTINGS } from '../main/core/config/settings.ts';
import type { SettingDef } from '../main/core/config/settingDef.ts';
import { LIVE_SETTINGS } from '../main/core/config/settingsMeta.ts';
import { allowedText, SETTING_GROUP_LABELS, SETTING_GROUPS, type SettingSpec } from '../contract/settings.ts';

const ROOT = join(import.meta.dirname, '..');
export const CONFIGURATION_DOC = join(ROOT, 'docs', 'configuration.md');

const TABLE = SETTINGS as readonly SettingDef<unknown>[];

/** What a row cannot say: written by hand, one entry per setting key (the test checks each key exists). */
export const NOTES: Record<string, string> = {
  dataDir:
    "The directory Electron's `userData` is for an app named Airlock, so the desktop app and `airlock serve` share it; on Linux `$XDG_CONFIG_HOME/Airlock` when that is set. What it holds: [using.md](using.md#the-data-directory).",
  profile:
    'Built in: `demo` and `openagenda`; your own are files in `<data dir>/profiles` ([apis.md](apis.md)). With `--spec` alone the profile is `custom`. Given, the companion serves that API alone; without it, every enabled API at once ([apis.md](apis.md#several-apis-at-once)), enabled and disabled while it runs.',
  spec: 'Given without `--profile`, it serves the profile `custom`.',
  auth: "`basic` takes the key as `username:password` and sends it as HTTP Basic. A document whose required security Airlock cannot send (HTTP Digest, mutual TLS) is refused at start unless `--auth` (or the profile's `auth`) says what to send; `--auth none` calls it without a credential.",
  refreshSpec: 'Offline, Airlock falls back to the cached copy with a warning.',
  logLevel: 'Logs go to stderr (and the live log), never stdout.',
  host: 'Anything but a loopback address is refused at start unless `--dangerously-allow-non-loopback` is given.',
  dangerouslyAllowNonLoopback: 'A warning is logged at start. The tokens are still required on every request.',
  exitWhenIdle:
    'The companion `airlock stdio` starts for itself when none is running gets `--exit-when-idle 300` ([clients.md](clients.md#how-stdio-joins-the-companion)).',
  ui: 'See [using.md](using.md#the-desktop-app-and-the-web-ui).',
  autoUpdate:
    'Updates come from GitHub releases through `electron-updater`. Airlock never restarts by itself, and "restart to update" is refused while approvals wait.',
  theme: 'Applies at once in every window, also when changed from another window or the CLI.',
  engine:
    'Which engine can go with which network boundary: [security.md](security.md#engines-and-the-network-boundary). The Engine screen switches a running companion at once (the next run uses the new engine) and saves the choice.',
  egress: 'An invalid engine × egress pair stops the command with its reason (exit 2). Like `--engine`, switched live from the Engine screen.',
  allowUnrestrictedEgress: 'A banner on stderr and in the log says so at every start; the acknowledgement is never saved, so it is needed at each start.',
  timeoutMs: 'Counted from when the code is about to run; paused while a call waits for a person.',
  memoryMb: 'Everything a run allocates, on every engine; off Linux the subprocess engines cap only the V8 heap ([security.md](security.md#memory-caps)).',
  sandboxMemoryMb:
    'The wasm memory of every QuickJS sandbox together, counted before each growth: the worst case for the companion is its base plus this. A run whose growth would cross it gets an out-of-memory error naming the budget.',
  outputKb: 'A cut result carries a visible "truncated" marker.',
  queueSize: '"At capacity" is a retryable error.',
  killSwitch:
    'Turning it on also stops every run still going (a run waiting for a person has its request withdrawn, and `execute {resume}` is refused). In the UI it is the **Kill switch** at the bottom of the navigation, never on the Settings screen.',
  approvalTimeoutMs: 'No answer in time is a denial ([approvals.md](approvals.md)).',
  approvalReplyAfterMs: 'See [held runs](approvals.md#held-runs).',
  secretStore:
    'There is no silent fallback: when the keychain cannot be used, Airlock says why and what to do ([security.md](security.md#keys-and-the-keychain)).',
  auditRetentionDays: 'Pruning leaves an anchor, so `airlock audit verify` still checks what is left.',
  diagnosticsTools:
    'The fourth, `web_log` (console output and errors of the desktop or web UI), comes and goes with them ([approvals.md](approvals.md#the-diagnostics-tools)).',
  logBufferSize: 'The ring holds the core’s log and each run’s console output; at the default it takes a few MB at most.',
};

const INTRO = `# Configuration

<!-- Generated by \`node scripts/configurationDoc.ts\` from main/core/config/settings.ts: edit the table or the script, not this file. -->

Every setting has a command-line flag and an \`AIRLOCK_*\` environment twin.
Each value is taken from the first of these that has it:

1. the **flag** (\`airlock serve --timeout-ms 10000\`);
2. the **environment** (\`AIRLOCK_TIMEOUT_MS=10000\`); an empty variable counts as unset;
3. **\`settings.json\`** in the data directory, for the settings marked *saved*
   below (the Settings screen, \`airlock settings set KEY=VALUE\` and the
   control API write it; its keys are the names given below, e.g.
   \`{ "timeoutMs": 10000 }\`);
4. the **default**.

A flag or env var wins over the Settings screen, and the screen says so next
to the setting. A bad value stops the command with one line naming the flag
or variable and the values allowed (exit 2); a bad \`settings.json\` is
reported with its path and the offending key, never silently ignored.
Booleans from the environment or \`settings.json\` accept \`1/0\`,
\`true/false\`, \`yes/no\` and \`on/off\`. \`airlock <command> --help\` lists the
flags each command takes, with their env twins and defaults.

The table in \`main/core/config/settings.ts\` is the one source of each
setting's type, limits, choices and default: the command line, env vars,
\`settings.json\`, the control API and the Settings screen all check a value
with the same check, so the limits the screen shows are the limits the core
enforces.

**When a change applies.** *Now*: a saved change reaches the running
companion at once, and the next run sees it. *After a restart*: saved now,
used from the next start. *At start*: a flag or env var only, never saved.
The settings that apply now are: ${[...LIVE_SETTINGS].map((k) => `\`${k}\``).join(', ')}.

**Secrets are never settings.** API keys come from the OS keychain
(\`airlock keys set PROFILE\`), the opt-in file store, or the environment, used
when the profile has no stored key: every API served reads its own variable,
\`AIRLOCK_KEY_<API>\` (the profile's name in capitals, every other character as
\`_\`: \`AIRLOCK_KEY_MY_API\` for \`my-api\`); the API the command names
(\`--profile\`, \`--spec\`) also reads \`AIRLOCK_API_KEY\`, after its own. There is
no flag for a key ([security.md](security.md#keys-and-the-keychain)).

Other environment variables, not settings: \`AIRLOCK_DESKTOP_APP\` (which
desktop app \`airlock stdio\` may start, \`none\` for never;
[clients.md](clients.md#how-stdio-joins-the-companion)), and, for the tests
only, \`AIRLOCK_REQUIRE_ALL\` and \`AIRLOCK_OPENAGENDA_SPEC\`
([testing.md](testing.md)).

Which API Airlock serves, and how its calls are treated, is set by a
**profile**: [apis.md](apis.md).
`;

/** What a free-text setting takes, by its declared format. */
const TEXT_FORMATS: Record<NonNullable<Extract<SettingSpec, { type: 'text' }>['format']>, string> = {
  path: 'a directory path',
  url: 'an http(s) URL, without credentials',
  host: 'an address to bind',
  auth: 'one of the schemes above',
  name: 'a name',
  location: 'a file path or an http(s) URL',
};

function code(value: unknown): string {
  return `\`${String(value)}\``;
}

function defaultOf(d: SettingDef<unknown>): string {
  if (d.defaultText) return d.defaultText.replace(/(--[a-z-]+)/g, '`$1`');
  if (d.defaultValue === undefined) return 'not set';
  if (typeof d.defaultValue === 'boolean') return d.defaultValue ? 'on' : 'off';
  const unit = 'unit' in d.spec && d.spec.unit ? ` ${d.spec.unit}` : '';
  return `${code(d.defaultValue)}${unit}`;
}

function allowedOf(d: SettingDef<unknown>): string {
  const spec: SettingSpec = d.spec;
  if (spec.type === 'boolean')
    return d.valueName ? '`on` or `off` (also 1/0, true/false, yes/no)' : 'a switch (no value); its env twin takes 1/0, true/false, yes/no, on/off';
  if (spec.type === 'choice') return spec.choices.map((c) => code(c.value)).join(', ');
  if (spec.type === 'text' && !spec.pattern && spec.format) return TEXT_FORMATS[spec.format];
  const text = allowedText(spec);
  return 'zero' in spec && spec.zero ? `${text}; 0 means ${spec.zero}` : text;
}

function appliesOf(d: SettingDef<unknown>): string {
  if (LIVE_SETTINGS.has(d.key)) return 'now';
  return d.persist ? 'after a restart' : 'at start';
}

function flagOf(d: SettingDef<unknown>): string {
  return code(d.valueName ? `${d.flag} ${d.valueName}` : d.flag);
}

/** The description as a sentence: a capital first letter and a full stop. */
function sentence(text: string): string {
  const t = text.trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (t.endsWith('.') ? '' : '.');
}

export function configurationDoc(): string {
  const out: string[] = [INTRO];
  out.push('## Every setting at a glance', '');
  out.push('| Flag | Env | Default | Applies | Saved |', '| --- | --- | --- | --- | --- |');
  // A pipe inside a cell (`<file|url>`) would end the cell: escape it.
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  for (const d of TABLE) out.push(`| ${cell(flagOf(d))} | ${code(d.env)} | ${cell(defaultOf(d))} | ${appliesOf(d)} | ${d.persist ? 'yes' : 'no'} |`);
  out.push('');
  for (const group of SETTING_GROUPS) {
    const rows = TABLE.filter((d) => d.group === group);
    if (rows.length === 0) continue;
    out.push(`## ${SETTING_GROUP_LABELS[group]}`, '');
    for (const d of rows) {
      out.push(`### ${code(d.flag)}`, '');
      out.push(`**${d.label}.** ${sentence(d.description)}${NOTES[d.key] ? ` ${NOTES[d.key]}` : ''}`, '');
      out.push(`- Flag: ${flagOf(d)} · env: ${code(d.env)}${d.persist ? ` · settings.json: ${code(d.key)}` : ''}`);
      out.push(`- Default: ${defaultOf(d)}`);
      out.push(`- Allowed: ${allowedOf(d)}`);
      out.push(`- Applies: ${appliesOf(d)}${d.persist ? '' : ' (not saved)'}`, '');
    }
  }
  return out.join('\n').replace(/\n+$/, '\n');
}

if (import.meta.main) {
  const want = configurationDoc();
  const path = relative(ROOT, CONFIGURATION_DOC);
  if (process.argv.includes('--check')) {
    if (!existsSync(CONFIGURATION_DOC) || readFileSync(CONFIGURATION_DOC, 'utf8') !== want) {
      process.stderr.write(`${path} is stale: run node scripts/configurationDoc.ts\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(CONFIGURATION_DOC, want);
    process.stdout.write(`wrote ${path}\n`);
  }
}
