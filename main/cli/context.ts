// What every command starts from: settings resolved from flags, env,
// settings.json and defaults; a log buffer; a logger on stderr.
import type { Command } from 'commander';
import { defaultDataDir, dataPaths } from '../core/config/dataDir.ts';
import { resolveSettings, SettingError, type ResolvedSettings, settingByKey } from '../core/config/settings.ts';
import { readSettingsFile } from '../core/config/settingsFile.ts';
import { LogBuffer } from '../core/log/logBuffer.ts';
import { createLogger, type Logger } from '../core/log/logger.ts';
import { usageError } from '../core/errors.ts';
import { typedFlags } from './options.ts';
import { RedactionHolder } from '../core/runtime/redactionHolder.ts';

export interface CliContext extends ResolvedSettings {
  logBuffer: LogBuffer;
  logger: Logger;
  /** Secrets the process knows, scrubbed from every log line. */
  redaction: RedactionHolder;
}

export function cliContext(command: Command, env: NodeJS.ProcessEnv = process.env): CliContext {
  const flags = typedFlags(command);
  const dataDirDef = settingByKey('dataDir')!;
  let dataDir: string;
  try {
    dataDir = (flags.dataDir as string | undefined) ?? (env[dataDirDef.env] ? dataDirDef.parse(env[dataDirDef.env]!) : defaultDataDir());
  } catch (error) {
    throw usageError(`${dataDirDef.env}: ${(error as Error).message}`);
  }
  const file = readSettingsFile(dataPaths(dataDir).settings);
  let resolved: ResolvedSettings;
  try {
    resolved = resolveSettings({ flags: { ...flags, dataDir }, env, file, defaultDataDir: dataDir });
  } catch (error) {
    if (error instanceof SettingError) throw usageError(error.message);
    throw error;
  }
  const logBuffer = new LogBuffer({ capacity: resolved.settings.logBufferSize });
  const redaction = new RedactionHolder();
  const logger = createLogger({ buffer: logBuffer, level: resolved.settings.logLevel, redact: redaction.redact });
  return { ...resolved, logBuffer, logger, redaction };
}
