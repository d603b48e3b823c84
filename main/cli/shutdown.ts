// Clean exit on SIGINT, SIGTERM (and stdin closing for stdio): run the
// registered cleanups once, then exit 0. A second signal exits at once.
// The log lines waiting for their turn's write go out first: a cleanup may
// remove server.json, and whoever watches for that reads the log next.
import { flushStderr } from '../core/log/logger.ts';
let cleanups: (() => Promise<void>)[] = [];
let shuttingDown = false;

export function onShutdown(cleanup: () => Promise<void>): void {
  if (cleanups.length === 0) {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
  }
  cleanups.push(cleanup);
}

export async function shutdown(code: number): Promise<never> {
  if (shuttingDown) process.exit(code);
  shuttingDown = true;
  flushStderr();
  const pending = cleanups;
  cleanups = [];
  const timer = setTimeout(() => process.exit(code), 5000);
  timer.unref();
  await Promise.allSettled(pending.map((c) => c()));
  // What was written to stdout (a last answer to the client) is out before the process ends.
  await new Promise<void>((resolve) =>
    process.stdout.writableLength === 0 && !process.stdout.writableCorked ? resolve() : process.stdout.write('', () => resolve()),
  );
  process.exit(code);
}
