// Replaces a file so that a crash leaves either the old content or the new,
// never half of one: write a private temp file beside it (created 0600 or the
// given mode, whatever the umask), fsync it, rename it over the target, then
// fsync the directory where the file system allows it. `sync: false` skips
// both fsyncs, for a cache that checks what it reads back: a reader still
// sees the old file or the new, and a power cut may leave it empty or torn.
// Temp files are named `.<name>.<pid>.<random>.tmp` (tempPrefix).
import { open, rename, rm, mkdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** What every temp file of `path` starts with. */
export function tempPrefix(path: string): string {
  return `.${basename(path)}.`;
}

export async function writeFileAtomic(path: string, content: string | Uint8Array, options: { mode?: number; sync?: boolean } = {}): Promise<void> {
  const mode = options.mode ?? 0o600;
  const sync = options.sync ?? true;
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `${tempPrefix(path)}${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx', mode);
    try {
      if (process.platform !== 'win32') await handle.chmod(mode);
      await handle.writeFile(content);
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
  if (sync && process.platform !== 'win32') {
    const d = await open(dir, 'r').catch(() => undefined);
    if (d)
      await d
        .sync()
        .catch(() => undefined)
        .finally(() => d.close());
  }
}
