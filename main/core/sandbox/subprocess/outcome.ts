// Turns what a guest program reported (or how its process ended) into a
// `RunError`: the kind, one clean paragraph, and frames that point at the
// caller's code only. Every text that leaves here has been scrubbed of host
// paths (temp dirs, the runtime's install dir, DENO_DIR, `file://` URLs).

import type { RunError } from '../engine.ts';
import type { SubprocessLimits } from './limits.ts';
import { limitError } from '../runBudget.ts';
import { GUEST_FILENAME } from './guestPrelude.ts';

/** What the prelude writes after an error line's type character. */
export interface GuestErrorReport {
  kind?: 'syntax' | 'runtime' | 'output';
  isError?: boolean;
  name?: string;
  message?: string;
  stack?: string;
  text?: string;
  line?: number;
  column?: number;
}

export type Scrubber = (text: string) => string;

const BOUNDARY = new Set([' ', '\t', '\n', '\r', '"', "'", '`', '(', ')', '<', '>', '\\']);

/**
 * Replaces every whitespace-delimited token that contains `needle` (from the
 * needle on, or the whole token when `wholeToken`). Linear in the text's
 * length whatever it holds: the text can be guest-controlled.
 */
function replaceTokens(text: string, needle: string, wholeToken: boolean): string {
  let index = text.indexOf(needle);
  if (index === -1) return text;
  let out = '';
  let copied = 0;
  while (index !== -1) {
    let start = index;
    if (wholeToken) while (start > copied && !BOUNDARY.has(text[start - 1]!)) start--;
    let end = index + needle.length;
    while (end < text.length && !BOUNDARY.has(text[end]!)) end++;
    out += text.slice(copied, start) + '<sandbox>';
    copied = end;
    index = text.indexOf(needle, end);
  }
  return out + text.slice(copied);
}

function replacePaths(text: string, paths: string[]): string {
  let out = text;
  for (const p of paths) if (out.includes(p)) out = out.split(p).join('<sandbox>');
  return out;
}

function sortedPaths(hostPaths: string[]): string[] {
  return [...new Set(hostPaths.filter((p) => p.length > 1))].sort((a, b) => b.length - a.length);
}

/** For texts the runtime composed (error messages, stacks): the given host paths, any `file://` URL, Deno's stdin module name. */
export function makeScrubber(hostPaths: string[]): Scrubber {
  const paths = sortedPaths(hostPaths);
  return (text: string) => replaceTokens(replacePaths(replaceTokens(text, 'file://', false), paths), '$deno$stdin', true);
}

/** For data the code chose to print or return: only Airlock's own host paths (and Deno's stdin module name) are replaced. */
export function makePathScrubber(hostPaths: string[]): Scrubber {
  const paths = sortedPaths(hostPaths);
  return (text: string) => replaceTokens(replacePaths(text, paths), '$deno$stdin', true);
}

// What an allocation refused by the memory cap throws inside the runtime: V8's typed arrays and ArrayBuffer
// ("Array buffer allocation failed"), Node's Buffer ("Failed to allocate memory"), wasm memory created or grown
// ("could not allocate memory", "Unable to grow instance memory").
const MEMORY_MESSAGE =
  /array buffer allocation failed|failed to allocate memory|out of memory|could not allocate memory|unable to grow instance memory|allocation failed/i;

export function errorFromReport(report: GuestErrorReport, limits: SubprocessLimits, scrub: Scrubber): RunError {
  if (report.kind === 'output') return limitError('output', limits);
  const name = scrub(String(report.name ?? 'Error'));
  const message = scrub(String(report.message ?? ''));
  const frames = scrub(String(report.stack ?? ''));
  if (report.kind === 'syntax') {
    const head = `${name}: ${message}`;
    if (typeof report.line === 'number' && report.line >= 1) {
      const where = `${GUEST_FILENAME}:${report.line}:${typeof report.column === 'number' ? report.column : 1}`;
      return { kind: 'syntax', message: `${head} (at ${where})`, stack: `${head}\n    at ${where}` };
    }
    return { kind: 'syntax', message: head };
  }
  if (report.isError === undefined) {
    // A message the prelude composed itself (the return value, a promise that never settles).
    return { kind: 'runtime', message: message || 'Execution failed' };
  }
  if (report.isError === false) return { kind: 'runtime', message: `Uncaught ${scrub(String(report.text ?? 'value'))}` };
  if (name === 'RangeError' && /maximum call stack size exceeded/i.test(message)) {
    return {
      kind: 'stack',
      message: 'Maximum call stack size exceeded',
      ...(frames ? { stack: `RangeError: Maximum call stack size exceeded\n${frames}` } : {}),
    };
  }
  if ((name === 'RangeError' || name === 'Error') && MEMORY_MESSAGE.test(message)) return limitError('memory', limits);
  const head = `${name}: ${message}`;
  return { kind: 'runtime', message: head, ...(frames ? { stack: `${head}\n${frames}` } : {}) };
}

const OOM_TEXT = /out of memory|reached heap limit|allocation failed|memory allocation of \d+ bytes failed|cannot allocate memory|std::bad_alloc/i;

/**
 * The process ended without a result or an error line: why, as far as its
 * exit and stderr tell. `nearDataCap`: the memory guard saw the runtime
 * within reach of its data cap, where any allocation can fail (also one the
 * runtime cannot survive), so a crash there is the memory cap's doing.
 */
export function errorFromExit(
  exit: { code: number | null; signal: NodeJS.Signals | null },
  stderr: string,
  limits: SubprocessLimits,
  runtime: string,
  nearDataCap = false,
): RunError {
  if (OOM_TEXT.test(stderr)) return limitError('memory', limits);
  const wrappedSignal = /Process killed by signal: (SIG[A-Z0-9]+)/.exec(stderr)?.[1];
  const signal = exit.signal ?? wrappedSignal ?? null;
  if (signal === 'SIGXCPU') return { kind: 'timeout', message: `Execution used more than ${limits.cpuSeconds} s of CPU time` };
  if (nearDataCap && (signal !== null || exit.code !== 0)) return limitError('memory', limits);
  // Nobody on the host sent this SIGKILL: on Linux that is the kernel's OOM killer (or the CPU-time limit's hard stop).
  if (signal === 'SIGKILL') return { kind: 'memory', message: `${limitError('memory', limits).message} (the ${runtime} process was killed by the system)` };
  const how = signal ? `was stopped by ${signal}` : `exited with code ${exit.code ?? 'unknown'}`;
  return { kind: 'internal', message: `The ${runtime} runtime ${how} before the code finished` };
}
