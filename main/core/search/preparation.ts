// Preparing APIs without stalling what is served: the host side of
// prepareProcess.ts. A store already made for the document is opened at once
// (the quick check needs no other process); otherwise a child process
// prepares it, one document at a time (two large documents at once would
// double the peak of memory), with its heap capped. Each preparation reports
// its progress (phase, percent, operations) and can be cancelled: its process
// is killed and nothing it wrote is put in place. Opening the store (a chunk
// at a time) is the only part that runs here.
//
// The child is this same program (Node, or Electron run as Node) on the
// module beside this one; it gets the job over the IPC channel and an
// environment with none of the companion's secrets (AIRLOCK_API_KEY and the
// like): only what finding files, temp dirs and TLS roots needs.
import { fork, type ChildProcess } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { rm } from 'node:fs/promises';
import { DamagedFile } from '../util/sectionFile.ts';
import { AirlockError, type ErrorKind } from '../util/errors.ts';
import { codeStamp, findPreparedStore, openPreparedApi, type OpenOptions, type PreparedApi, type PreparedStore, type PrepareProgress } from './preparedApi.ts';

/** What the preparing process is given. */
export interface PrepareJob {
  spec: string;
  cacheDir: string;
  code: string;
  maxBytes?: number;
  refresh?: boolean;
  allowExternalRefs?: string[];
  racyMs?: number;
}

/** What the preparing process says. */
export type PreparerMessage =
  | { type: 'progress'; progress: PrepareProgress }
  | { type: 'done'; store: PreparedStore }
  | { type: 'failed'; error: { kind: ErrorKind; message: string; hint?: string } };

export interface PrepareRequest extends OpenOptions {
  spec: string;
  cacheDir: string;
  /** Prepare again even when a store fits (`--refresh-spec`). */
  refresh?: boolean;
  allowExternalRefs?: string[];
  /** The cap on a document's size, in bytes. */
  maxBytes?: number;
  /** Tests: trust a document's times at once. */
  racyMs?: number;
  /** Cancels: the process is killed, the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface Preparation {
  /** The API's prepared form: opened from its store, the store made first (in a child process) when none fits. */
  prepare(request: PrepareRequest): Promise<PreparedApi>;
  /** Kills what is preparing; later calls are refused. */
  close(): void;
  /** Preparing processes started so far, and the pids of those running. */
  stats?(): { started: number; running: number[] };
}

export interface PreparationConfig {
  /** The cap on the preparing process's heap, in MiB. */
  memoryMb(): number;
  /** The preparing module (default: the one beside this module). */
  moduleUrl?: URL;
}

/** The preparing module beside this one: TypeScript in a checkout, the built `prepareProcess.js` beside the bundle. */
export function defaultPrepareModuleUrl(moduleUrl: string = import.meta.url): URL {
  return new URL(moduleUrl.endsWith('.ts') ? './prepareProcess.ts' : './prepareProcess.js', moduleUrl);
}

/** What the child's environment keeps of ours: where files and temp dirs are, the locale, TLS roots. Nothing else. */
const CHILD_ENV = [
  'PATH',
  'HOME',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'TMPDIR',
  'TEMP',
  'TMP',
  'SystemRoot',
  'LANG',
  'LC_ALL',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of CHILD_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  // Electron's binary runs a script as Node only when told to.
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return env;
}

/** Lines of the child's stderr kept to say why it ended. */
const STDERR_KEPT = 4096;

export function createPreparation(config: PreparationConfig): Preparation {
  const module = fileURLToPath(config.moduleUrl ?? defaultPrepareModuleUrl());
  const running = new Set<ChildProcess>();
  /** Preparations run one after another. */
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let started = 0;

  async function prepare(request: PrepareRequest): Promise<PreparedApi> {
    request.signal?.throwIfAborted();
    const code = await codeStamp().catch(() => undefined);
    const quick = request.refresh || code === undefined ? undefined : await findPreparedStore(request.spec, { ...request, code });
    const store = quick ?? (await queued(request, code ?? 'none'));
    request.signal?.throwIfAborted();
    try {
      return await openPreparedApi(store, request);
    } catch (error) {
      // A store that fails its checks is never used: it goes, and the document is prepared again.
      if (!(error instanceof DamagedFile) && !(error instanceof SyntaxError)) throw error;
      await rm(store.file, { force: true });
      return openPreparedApi(await queued(request, code ?? 'none'), request);
    }
  }

  /** Waits its turn (rejects at once when cancelled meanwhile), then prepares in a child process. */
  function queued(request: PrepareRequest, code: string): Promise<PreparedStore> {
    return new Promise<PreparedStore>((resolve, reject) => {
      const onAbort = () => reject(request.signal!.reason);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      queue = queue.then(() => inChild(request, code).then(resolve, reject)).finally(() => request.signal?.removeEventListener('abort', onAbort));
    });
  }

  function inChild(request: PrepareRequest, code: string): Promise<PreparedStore> {
    if (closed) return Promise.reject(new AirlockError('unavailable', 'the companion is closing'));
    if (request.signal?.aborted) return Promise.reject(request.signal.reason);
    const memoryMb = config.memoryMb();
    const job: PrepareJob = {
      spec: request.spec,
      cacheDir: request.cacheDir,
      code,
      ...(request.refresh ? { refresh: true } : {}),
      ...(request.allowExternalRefs?.length ? { allowExternalRefs: request.allowExternalRefs } : {}),
      ...(request.maxBytes !== undefined ? { maxBytes: request.maxBytes } : {}),
      ...(request.racyMs !== undefined ? { racyMs: request.racyMs } : {}),
    };
    return new Promise<PreparedStore>((resolve, reject) => {
      const child = fork(module, [], {
        execArgv: [`--max-old-space-size=${memoryMb}`],
        env: childEnvironment(),
        // stdout carries the MCP protocol in stdio mode: the child's is never ours. Its stderr is kept to say why it ended.
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'json',
      });
      // Preparing is background work: the companion serving calls comes first when both want the CPU (Linux nice 10,
      // Windows below normal). Set as it starts; a platform that refuses it prepares at normal priority.
      if (child.pid !== undefined) {
        try {
          setPriority(child.pid, constants.priority.PRIORITY_BELOW_NORMAL);
        } catch {
          // Not allowed here: the preparation still runs.
        }
      }
      running.add(child);
      started++;
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-STDERR_KEPT);
      });
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        running.delete(child);
        request.signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const onAbort = () => {
        settle(() => reject(request.signal!.reason));
        child.kill('SIGKILL');
      };
      request.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('message', (message: PreparerMessage) => {
        if (message.type === 'progress') request.onProgress?.(message.progress);
        else if (message.type === 'done') settle(() => resolve(message.store));
        else settle(() => reject(new AirlockError(message.error.kind, message.error.message, message.error.hint ? { hint: message.error.hint } : {})));
      });
      child.on('error', (error) => settle(() => reject(new AirlockError('internal', `could not start preparing ${request.spec}: ${error.message}`))));
      child.on('exit', (exitCode, signal) =>
        settle(() =>
          reject(
            /heap limit|out of memory/i.test(stderr)
              ? new AirlockError('spec', `${request.spec} needs more than ${memoryMb} MB to prepare (the cap on preparing a document)`, {
                  hint: `raise it with --prepare-memory-mb (AIRLOCK_PREPARE_MEMORY_MB, or Settings), e.g. ${memoryMb * 2}, or serve a smaller document`,
                })
              : new AirlockError(
                  'internal',
                  `preparing ${request.spec} stopped (${signal ?? `exit ${exitCode}`})${stderr.trim() ? `: ${stderr.trim().split('\n').pop()}` : ''}`,
                ),
          ),
        ),
      );
      child.send(job);
    });
  }

  return {
    prepare,
    stats: () => ({ started, running: [...running].flatMap((c) => (c.pid !== undefined ? [c.pid] : [])) }),
    close() {
      closed = true;
      for (const child of running) child.kill('SIGKILL');
      running.clear();
    },
  };
}
