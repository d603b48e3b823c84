// An audit store in a temporary directory for one test, its clock fixed
// (tests move it through `now` where they need to), closed and removed after.
import { join } from 'node:path';
import { openAuditStore, type AuditStore, type AuditStoreOptions } from '../../main/core/audit/auditStore.ts';
import { tempDir } from './paths.ts';

export function withAuditStore(
  at: number,
  run: (store: AuditStore, file: string) => void | Promise<void>,
  options: Partial<AuditStoreOptions> = {},
): () => Promise<void> {
  return async () => {
    const { dir, cleanup } = tempDir('airlock-audit-');
    const file = join(dir, 'data', 'audit.sqlite');
    const store = openAuditStore({ file, now: () => new Date(at), ...options });
    try {
      await run(store, file);
    } finally {
      store.close();
      cleanup();
    }
  };
}
