// A command the organisation's managed policy refuses before it reaches a
// companion (`apis add`, `servers add`): the refusal is audited in the data
// dir's audit log, as a companion audits what it refuses, then thrown. A log
// that cannot be written is said on stderr; the command is refused all the
// same.
import { openAuditStore } from '../core/audit/auditStore.ts';
import { dataPaths } from '../core/config/dataDir.ts';
import { refusedByOrganisation } from '../core/config/managedPolicy.ts';
import { recordPolicyEvent } from '../core/runtime/policyAudit.ts';
import type { CliContext } from './context.ts';

export async function refuseByPolicy(ctx: CliContext, action: string, why: string, outcome: string): Promise<never> {
  await auditRefusal(ctx, action, why);
  throw refusedByOrganisation(`${why}; ${outcome}`);
}

/** Records in the data dir's audit log what the organisation's policy refused the CLI; a log that cannot be written is said. */
export async function auditRefusal(ctx: CliContext, action: string, why: string): Promise<void> {
  try {
    const store = openAuditStore({ file: dataPaths(ctx.settings.dataDir).audit, redact: ctx.redaction.redact });
    try {
      await recordPolicyEvent(store, { action, by: 'airlock CLI', why });
    } finally {
      store.close();
    }
  } catch (error) {
    process.stderr.write(`airlock: warning: the audit log could not record this refusal: ${(error as Error).message}\n`);
  }
}
