// `airlock settings list` — every setting, the value in effect and where it came
// from, with what the organisation's managed policy fixes or bounds said so
// ("set by your organisation"); `airlock settings set key=value …` changes
// them as the Settings screen does: through the running companion's control
// API (a live setting applies at once), or with none running straight into
// settings.json, with the same checks either way — a value the organisation
// fixes, or one outside its bound, is refused with that reason (and audited),
// never saved and silently reverted.
import type { CliContext } from '../context.ts';
import type { z } from 'zod';
import type { settingsViewSchema } from '../../../contract/settings.ts';
import type { ControlCaller } from '../../../contract/control.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import { OrganisationRefusal } from '../../core/config/managedPolicy.ts';
import { AIRLOCK_VERSION } from '../../core/util/version.ts';
import { createLiveSettings } from '../../core/runtime/liveSettings.ts';
import { createSettingsHandlers } from '../../core/runtime/settingsHandlers.ts';
import { usageError } from '../../core/util/errors.ts';
import { localUser } from '../../core/runtime/localUser.ts';
import { auditRefusal } from '../policyRefusal.ts';

async function running(ctx: CliContext) {
  return (await import('../runningServer.ts')).runningCompanion(ctx.settings.dataDir);
}

/** The Settings screen's methods over this data dir, for when no companion runs. */
function offline(ctx: CliContext) {
  return createSettingsHandlers({
    info: { version: AIRLOCK_VERSION, mode: 'serve', startedAt: new Date(), paths: dataPaths(ctx.settings.dataDir) },
    settings: createLiveSettings(ctx),
    logs: { logger: ctx.logger, buffer: ctx.logBuffer, redact: ctx.redaction.redact },
  });
}

type SettingsView = z.infer<typeof settingsViewSchema>;
const caller = (): ControlCaller => ({ by: `${localUser()} via CLI`, channel: 'internal' });

/** Where a value came from, in words. */
function sourceText(view: SettingsView, key: string, flag: string, env: string, limit: string | undefined): string {
  const source = view.sources[key];
  if (source === 'managed') return limit ? `set by your organisation (brought within: ${limit})` : 'set by your organisation';
  const where = source === 'flag' ? flag : source === 'env' ? env : source === 'file' ? 'settings.json' : 'default';
  return limit ? `${where}; your organisation allows ${limit}` : where;
}

export async function settingsList(ctx: CliContext, o: { json: boolean }): Promise<void> {
  const control = await running(ctx);
  const view = control ? await control.call('settings.get', {}) : await offline(ctx)['settings.get']({}, caller());
  if (o.json) {
    process.stdout.write(JSON.stringify(view, null, 2) + '\n');
    return;
  }
  if (view.organisation)
    process.stdout.write(
      view.organisation.state === 'broken'
        ? `Your organisation's managed policy ${view.organisation.file} is broken (${view.organisation.error}): execute is switched off.\n\n`
        : `Set by your organisation (${view.organisation.file}): ${view.organisation.rules.map((r) => r.text).join('; ')}.\n\n`,
    );
  const width = Math.max(...view.meta.map((m) => m.key.length));
  for (const m of view.meta) {
    const value = view.values[m.key];
    const shown = value === undefined ? '(not set)' : String(value);
    process.stdout.write(
      `${m.key.padEnd(width)}  ${shown.padEnd(12)}  ${sourceText(view, m.key, m.flag, m.env, m.limit)}${m.persist ? '' : '; start-up only'}\n`,
    );
  }
  if (!control) process.stdout.write('\nNo companion runs for this data dir: what the next start would use.\n');
}

export async function settingsSet(ctx: CliContext, pairs: string[]): Promise<void> {
  const values: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw usageError(`'${pair}' is not key=value (for example: airlock settings set timeoutMs=10000)`);
    values[pair.slice(0, at)] = pair.slice(at + 1);
  }
  if (Object.keys(values).length === 0) throw usageError('give at least one key=value (airlock settings list shows the keys)');
  const control = await running(ctx);
  let result: { saved: string[]; applied: string[]; restartRequired: string[] };
  try {
    result = control ? await control.call('settings.update', { values }) : await offline(ctx)['settings.update']({ values }, caller());
  } catch (error) {
    // Refused by the organisation with no companion to audit it: the CLI records it (a companion's dispatch does).
    if (!control && error instanceof OrganisationRefusal) await auditRefusal(ctx, 'settings set', error.message);
    throw error;
  }
  process.stdout.write(`Saved: ${result.saved.join(', ')}.\n`);
  if (result.applied.length > 0) process.stdout.write(`In effect now: ${result.applied.join(', ')}.\n`);
  if (result.restartRequired.length > 0) process.stdout.write(`After a restart: ${result.restartRequired.join(', ')}.\n`);
}
