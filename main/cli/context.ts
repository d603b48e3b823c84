// The CLI's view of the runtime context: the flags a person typed, on top of
// env, settings.json and defaults.
import type { Command } from 'commander';
import { typedFlags } from './options.ts';
import { runtimeContext, type RuntimeContext } from '../core/runtime/runtimeContext.ts';

export type CliContext = RuntimeContext;

export function cliContext(command: Command, env: NodeJS.ProcessEnv = process.env): CliContext {
  return runtimeContext(typedFlags(command), env);
}
