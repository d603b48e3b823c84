// A mock of an API from its OpenAPI document (Stoplight Prism), for end-to-end
// tests against a real-world contract. Ready when Prism says it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.ts';
import { join } from 'node:path';
import { ROOT } from './paths.ts';

export interface PrismMock {
  url: string;
  /** `METHOD /path` of each request, as Prism logged it. */
  requests: string[];
  /** Resolves once Prism has logged a request matching `re`. */
  waitForRequest(re: RegExp): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrism(spec: string): Promise<PrismMock> {
  const port = await freePort();
  const child: ChildProcess = spawn(join(ROOT, 'node_modules', '.bin', 'prism'), ['mock', '-h', '127.0.0.1', '-p', String(port), spec], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const requests: string[] = [];
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (/Prism is listening/.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`prism exited (${code}) before listening:\n${output}`)));
  });
  // Prism logs each request as `[HTTP SERVER] post /path?query ℹ info Request received`.
  let pending = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = /\[HTTP SERVER\] (\w+) (\S+) .*Request received/.exec(line);
      if (!m) continue;
      const request = `${m[1]!.toUpperCase()} ${m[2]}`;
      requests.push(request);
      for (const w of [...waiters]) {
        if (!w.re.test(request)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    waitForRequest: (re) => (requests.some((r) => re.test(r)) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ re, resolve }))),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
