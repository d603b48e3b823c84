// The managed policy as Group Policy or Intune deploys it on Windows (issue 40
// §1): a string value `Policy` under HKLM\SOFTWARE\Policies\Airlock holding
// the same JSON as managed.json (only an administrator can write under
// HKLM\SOFTWARE\Policies). Read with Windows' own `reg query` — no native
// module — whose output is a few lines: the key, then
// `    Policy    REG_SZ    {…}`.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const POLICY_KEY = 'HKLM\\SOFTWARE\\Policies\\Airlock';
export const POLICY_VALUE = 'Policy';
/** How the registry source is named in messages, the doctor and the screens. */
export const REGISTRY_SOURCE = `${POLICY_KEY}\\${POLICY_VALUE}`;

/** The value's text from `reg query`'s output, or undefined when the output holds no such value. */
export function parseRegQuery(output: string): string | undefined {
  for (const line of output.split(/\r?\n/)) {
    const m = /^\s+(\S+)\s+(REG_SZ|REG_EXPAND_SZ|REG_MULTI_SZ)\s{4}(.*)$/.exec(line);
    if (!m || m[1]!.toLowerCase() !== POLICY_VALUE.toLowerCase()) continue;
    // A multi-string value is shown with its parts joined by a literal \0.
    return m[2] === 'REG_MULTI_SZ' ? m[3]!.split('\\0').join('\n') : m[3]!;
  }
  return undefined;
}

export type RegQuery = (args: string[]) => string;

/** Windows' own reg.exe, by its full path: a reg.exe placed earlier on PATH is never the one that reads the policy. */
const REG_EXE = join(process.env.SystemRoot ?? 'C:\\Windows', 'System32', 'reg.exe');
const regQuery: RegQuery = (args) => execFileSync(REG_EXE, ['query', ...args], { encoding: 'utf8', timeout: 10_000, windowsHide: true });

/** The policy's JSON text from the registry, or undefined when the key or its value is not there (reg query then fails). */
export function readRegistryPolicy(query: RegQuery = regQuery): string | undefined {
  let output: string;
  try {
    output = query([POLICY_KEY, '/v', POLICY_VALUE]);
  } catch {
    return undefined;
  }
  return parseRegQuery(output);
}
