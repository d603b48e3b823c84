// Bridges the settings table to commander: one option per setting, parsed by
// the setting's own parser so a bad value fails with one line that names the
// flag and the allowed values. Env twins and settings.json are merged after
// parsing (see resolveSettings), so the flag always wins.
import { Option, InvalidArgumentError, type Command } from 'commander';
import { SETTINGS } from '../core/config/settings.ts';
import { SettingError, type SettingDef, type SettingGroup } from '../core/config/settingDef.ts';

/** Adds the settings of `groups`, and the single settings named in `keys`, as options of `command`. */
export function addSettingOptions(command: Command, groups: SettingGroup[], keys: readonly string[] = []): Command {
  for (const s of SETTINGS as readonly SettingDef<any>[]) {
    if (!groups.includes(s.group) && !keys.includes(s.key)) continue;
    const flags = s.valueName ? `${s.flag} ${s.valueName}` : s.flag;
    const defaultText = s.defaultText ?? (s.defaultValue !== undefined && s.valueName ? String(s.defaultValue) : undefined);
    const help = `${s.description} [env ${s.env}]${defaultText ? ` (default: ${defaultText})` : ''}`;
    const option = new Option(flags, help);
    if (s.valueName) {
      option.argParser((raw: string) => {
        try {
          return s.parse(raw);
        } catch (error) {
          if (error instanceof SettingError) throw new InvalidArgumentError(error.message);
          throw error;
        }
      });
    }
    command.addOption(option);
  }
  return command;
}

/** The options the person actually typed, keyed by setting key. */
export function typedFlags(command: Command): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const values = command.opts();
  for (const s of SETTINGS as readonly SettingDef<any>[]) {
    if (command.getOptionValueSource(s.key) === 'cli' && values[s.key] !== undefined) out[s.key] = values[s.key];
  }
  return out;
}
