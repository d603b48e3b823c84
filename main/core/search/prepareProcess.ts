// The process that prepares an API's store (preparation.ts starts it, one at
// a time): read, parse, resolve, catalogue, index, write — the work that
// would stall every client if it ran where they are served. It is a process
// of its own, not a thread of the companion: its memory is capped by its own
// heap limit and given back to the system when it ends (Microsoft Graph's
// document takes ~600 MB to prepare, for a store the companion then opens in
// a fraction of that), a document that breaks the parser breaks only it, and
// the companion's own tuning (`--optimize-for-size`) does not slow it. It
// reports progress, then where the store is, and exits. Its stdout is
// unused: only the IPC channel carries messages.
import { AirlockError, errorMessage } from '../util/errors.ts';
import { prepareStore, type PrepareProgress } from './preparedApi.ts';
import type { PrepareJob, PreparerMessage } from './preparation.ts';

const send = (message: PreparerMessage) =>
  new Promise<void>((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, undefined, () => resolve());
  });

/** At most one progress message per this many ms (and one at each change of phase). */
const PROGRESS_EVERY_MS = 100;
let lastPhase = '';
let lastAt = 0;

function progress(p: PrepareProgress): void {
  const now = performance.now();
  if (p.phase === lastPhase && now - lastAt < PROGRESS_EVERY_MS) return;
  lastPhase = p.phase;
  lastAt = now;
  void send({ type: 'progress', progress: p });
}

async function run(job: PrepareJob): Promise<void> {
  try {
    const store = await prepareStore(job.spec, {
      cacheDir: job.cacheDir,
      code: job.code,
      ...(job.refresh ? { refresh: true } : {}),
      ...(job.allowExternalRefs ? { allowExternalRefs: job.allowExternalRefs } : {}),
      ...(job.racyMs !== undefined ? { racyMs: job.racyMs } : {}),
      ...(job.maxBytes !== undefined ? { maxBytes: job.maxBytes } : {}),
      onProgress: progress,
    });
    await send({ type: 'done', store });
  } catch (error) {
    await send({
      type: 'failed',
      error:
        error instanceof AirlockError
          ? { kind: error.kind, message: error.message, ...(error.hint ? { hint: error.hint } : {}) }
          : { kind: 'spec', message: errorMessage(error) },
    });
  }
  process.exit(0);
}

// The job is the first message; the host ending the channel ends this process.
process.once('message', (job: PrepareJob) => void run(job));
process.on('disconnect', () => process.exit(0));
