// What every entry point (CLI command, Electron main) starts from: settings
// resolved from flags, env, settings.json and defaults; a bounded log
// buffer; a logger on stderr that scrubs known secrets.
import { defaultDataDir, dataPaths, checkDataDir } from '../config/dataDir.ts';
import { settingByKey } from '../config/settings.ts';
import { SettingError } from '../config/settingDef.ts';
import { resolveSettings, type ResolvedSettings } from '../config/resolveSettings.ts';
import { readSettingsFile } from '../config/settingsFile.ts';
import { BY_ORGANISATION, managedPolicyPath, managedSettings, policyOf, readManagedPolicy, registryPolicy } from '../config/managedPolicy.ts';
import { LogBuffer } from '../log/logBuffer.ts';
import { createLogger, type Logger } from '../log/logger.ts';
import { usageError } from '../util/errors.ts';
import { RedactionHolder } from '../log/redactionHolder.ts';
import { messageOf } from '../../../contract/values.ts';

export interface StartContext extends ResolvedSettings {
  logBuffer: LogBuffer;
  logger: Logger;
  /** Secrets the process knows, scrubbed from every log line. */
  redaction: RedactionHolder;
}

export function startContext(flags: Record<string, unknown>, env: Record<string, string | undefined> = process.env): StartContext {
  const dataDirDef = settingByKey('dataDir')!;
  let dataDir: string;
  try {
    dataDir = (flags.dataDir as string | undefined) ?? (env[dataDirDef.env] ? dataDirDef.parse(env[dataDirDef.env]!) : defaultDataDir());
  } catch (error) {
    throw usageError(`${dataDirDef.env}: ${messageOf(error)}`);
  }
  checkDataDir(dataDir, flags.dataDir !== undefined ? '--data-dir' : env[dataDirDef.env] ? dataDirDef.env : 'the default data dir');
  const file = readSettingsFile(dataPaths(dataDir).settings);
  let resolved: ResolvedSettings;
  try {
    // The data dir keeps its own source (flag, env, default): a companion started with AIRLOCK_DATA_DIR says so, and its
    // start command then writes it out (issue 39 §6).
    // The organisation's managed file wins over everything; a broken one switches execute off (it is never ignored).
    const managed = readManagedPolicy(managedPolicyPath(process.platform, env), registryPolicy(process.platform, env));
    const limits = policyOf(managed)?.limits;
    resolved = { ...resolveSettings({ flags, env, file, defaultDataDir: dataDir, managed: managedSettings(managed), ...(limits ? { limits } : {}) }), managed };
  } catch (error) {
    if (error instanceof SettingError) throw usageError(error.message);
    throw error;
  }
  const redaction = new RedactionHolder();
  // One exit point: the ring redacts every line it takes, whoever writes it.
  const logBuffer = new LogBuffer({ capacity: resolved.settings.logBufferSize, redact: redaction.redact });
  const logger = createLogger({ buffer: logBuffer, level: resolved.settings.logLevel, redact: redaction.redact });
  if (resolved.managed?.state === 'broken')
    logger.error(
      `the managed policy ${resolved.managed.file} is broken (${resolved.managed.error}): execute is switched off until it is fixed (${BY_ORGANISATION})`,
    );
  else if (resolved.managed?.state === 'ok') logger.info(`managed policy ${resolved.managed.file} in effect (${BY_ORGANISATION})`);
  return { ...resolved, logBuffer, logger, redaction };
}
