// A settings file of Airlock's own, read and checked against its schema: an
// absent file is undefined; one that is not JSON, or not what the schema
// says, is refused with the file, what is wrong (the first field at fault)
// and what to do — never silently replaced by a default that would then be
// written over it.
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { AirlockError } from './errors.ts';
import { messageOf } from '../../../contract/values.ts';

/** The first problem of a schema check, with its field, and how many more there are. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where = issue.path.length > 0 ? `"${issue.path.join('.')}" ` : '';
  return `${where}${issue.message}${error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : ''}`;
}

export function readJsonFile<S extends z.ZodType>(file: string, schema: S, hint: string): z.infer<S> | undefined {
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AirlockError('config', `${file}: not valid JSON: ${messageOf(error)}`, { hint });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new AirlockError('config', `${file}: ${firstIssue(parsed.error)}`, { hint });
  return parsed.data;
}
