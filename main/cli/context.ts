// The CLI's view of the runtime context: the flags a person typed, on top of
// env, settings.json and defaults.
import type { Command } from 'commander';
import { typedFlags } from './options.ts';
import { startContext, type StartContext } from '../core/runtime/startContext.ts';

export type CliContext = StartContext;

export function cliContext(command: Command, env: NodeJS.ProcessEnv = process.env): CliContext {
  return startContext(typedFlags(command), env);
}
