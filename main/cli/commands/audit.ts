// `airlock audit tail | export | verify`, read straight from the audit file
// in the data dir (a running server keeps writing; SQLite WAL lets readers
// in). `tail --follow` streams new records from the running server.
import { createWriteStream, existsSync } from 'node:fs';
import { openAuditStore, type AuditStore } from '../../core/audit/auditStore.ts';
import type { AuditEntry, AuditFilter } from '../../core/audit/types.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import { AirlockError } from '../../core/util/errors.ts';
import type { CliContext } from '../context.ts';
import { callKindOf, serverOfProfile } from '../../../contract/calls.ts';
import { connectToRunningServer } from '../runningServer.ts';

export interface AuditFilterOptions {
  since?: string;
  until?: string;
  client?: string;
  tool?: string;
  outcome?: string;
  text?: string;
  /** An API's profile name, or `mcp:<server>`. */
  api?: string;
}

function openStore(ctx: CliContext): AuditStore {
  const file = dataPaths(ctx.settings.dataDir).audit;
  if (!existsSync(file))
    throw new AirlockError('config', `no audit log yet at ${file}`, { hint: 'it is created by the first `airlock serve` or `airlock stdio`' });
  return openAuditStore({ file });
}

export function filterOf(o: AuditFilterOptions): AuditFilter {
  return {
    ...(o.since ? { from: o.since } : {}),
    ...(o.until ? { to: o.until } : {}),
    ...(o.client ? { client: o.client } : {}),
    ...(o.tool ? { tool: o.tool } : {}),
    ...(o.outcome ? { outcome: o.outcome } : {}),
    ...(o.text ? { text: o.text } : {}),
    ...(o.api ? { profile: o.api } : {}),
  };
}

export function formatEntry(e: AuditEntry): string {
  switch (e.kind) {
    case 'tool':
      return `#${e.seq} ${e.time} tool ${e.tool} ${e.outcome} ${Math.round(e.durationMs)}ms ${e.clientName ?? '-'}${e.clientVersion ? `/${e.clientVersion}` : ''} ${e.transport}${e.runId ? ` run ${e.runId.slice(0, 8)}` : ''}${e.error ? ` — ${e.error.split('\n')[0]!.slice(0, 120)}` : ''}`;
    case 'api':
      return `#${e.seq} ${e.time}   ${callKindOf(e) === 'api-call' ? `api ${e.method} ${e.url}` : `mcp ${e.server ?? serverOfProfile(e.profile) ?? '?'}/${e.operationId}`} → ${e.status || '-'} ${e.decision}${e.approval ? ` (${e.approval.by}${e.approval.scope ? `, ${e.approval.scope}` : ''})` : ''} ${Math.round(e.durationMs)}ms${e.error ? ` — ${e.error.slice(0, 120)}` : ''}`;
    case 'prune':
      return `#${e.seq} ${e.time} prune ${e.pruned} records older than ${e.olderThanDays} days`;
    default: {
      const never: never = e;
      return String(never);
    }
  }
}

export async function auditTail(ctx: CliContext, options: AuditFilterOptions & { lines: number; json?: boolean; follow?: boolean }): Promise<void> {
  const store = openStore(ctx);
  try {
    // Page by page (a page holds at most 500), newest first, until -n records or the first: every one asked for is printed.
    const newest: AuditEntry[] = [];
    let before: number | undefined;
    do {
      const page = store.query({ ...filterOf(options), limit: Math.min(500, options.lines - newest.length), ...(before !== undefined ? { before } : {}) });
      newest.push(...page.records);
      before = page.next;
    } while (before !== undefined && newest.length < options.lines);
    for (let i = newest.length - 1; i >= 0; i--) process.stdout.write((options.json ? JSON.stringify(newest[i]) : formatEntry(newest[i]!)) + '\n');
  } finally {
    store.close();
  }
  if (!options.follow) return;
  const client = await connectToRunningServer(ctx.settings.dataDir);
  await new Promise<void>((resolve) => {
    void client.events(
      (batch) => {
        for (const event of batch) {
          if (event.type !== 'audit') continue;
          const record = event.record as unknown as AuditEntry;
          process.stdout.write((options.json ? JSON.stringify(record) : formatEntry(record)) + '\n');
        }
      },
      { since: Number.MAX_SAFE_INTEGER },
    );
    process.once('SIGINT', () => resolve());
  });
}

export async function auditExport(ctx: CliContext, options: AuditFilterOptions & { format: 'jsonl' | 'csv'; output?: string }): Promise<void> {
  const store = openStore(ctx);
  try {
    const out = options.output ? createWriteStream(options.output, { mode: 0o600 }) : process.stdout;
    const { records } = await store.export(
      options.format,
      filterOf(options),
      (chunk) => new Promise<void>((resolve, reject) => out.write(chunk, (error) => (error ? reject(error) : resolve()))),
    );
    if (options.output) {
      await new Promise<void>((resolve) => (out as NodeJS.WritableStream).end(resolve));
      process.stderr.write(`Exported ${records} records to ${options.output}.\n`);
    }
  } finally {
    store.close();
  }
}

export function auditVerify(ctx: CliContext, options: { json?: boolean }): number {
  const store = openStore(ctx);
  try {
    const result = store.verify();
    if (options.json) process.stdout.write(JSON.stringify(result) + '\n');
    else if (result.ok) process.stdout.write(`Audit log intact: ${result.records} records, hash chain verified (${store.file}).\n`);
    else
      process.stdout.write(
        `Audit log TAMPERED or damaged at record #${result.firstBad.seq}: ${result.firstBad.reason} (${result.records} records checked, ${store.file}).\n`,
      );
    return result.ok ? 0 : 1;
  } finally {
    store.close();
  }
}
