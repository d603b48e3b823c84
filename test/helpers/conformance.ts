// The official MCP conformance suite (@modelcontextprotocol/conformance, a
// dev dependency) run as its own CLI: list its server scenarios, run them all
// against a URL, read each scenario's checks.json, and read the
// expected-failures file (the suite's own baseline format) with the reason
// given for each entry.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isScalar, isSeq, parseDocument } from 'yaml';
import { NODE, ROOT } from './paths.ts';
import type { SystemNeed } from './systemTools.ts';

export const CONFORMANCE_DIR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance');
export const CONFORMANCE_BIN = join(CONFORMANCE_DIR, 'dist', 'index.js');
export const EXPECTED_FAILURES = join(ROOT, 'test', 'integration', 'conformance-expected-failures.yml');

/** The suite's package, installed by `npm ci` (a dev dependency). */
export const CONFORMANCE: SystemNeed = {
  why: 'the MCP conformance suite',
  check: () => (existsSync(CONFORMANCE_BIN) ? [] : ['@modelcontextprotocol/conformance']),
  packages: 'the npm package @modelcontextprotocol/conformance',
  install: 'npm ci',
};

/**
 * The suite's release that knows MCP 2026-07-28 and its requirement sets (`--requirements`), installed beside the
 * 0.1 one under an alias (`@modelcontextprotocol/conformance-2026`): the server is checked at both revisions with
 * it; the client scenarios stay on 0.1, whose every client scenario Airlock's client passes.
 */
export const CONFORMANCE_2026_DIR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance-2026');
export const CONFORMANCE_2026_BIN = join(CONFORMANCE_2026_DIR, 'dist', 'index.js');

export const CONFORMANCE_2026: SystemNeed = {
  why: 'the MCP conformance suite with the 2026-07-28 requirements',
  check: () => (existsSync(CONFORMANCE_2026_BIN) ? [] : ['@modelcontextprotocol/conformance-2026']),
  packages: 'the npm package @modelcontextprotocol/conformance@0.2.0-alpha.12 (aliased conformance-2026)',
  install: 'npm ci',
};

/** The expected failures of `airlock serve` at one revision's requirement set (2025-11-25: the file the 0.1 client runs read too). */
export const expectedFailuresAt = (revision: string) =>
  revision === '2025-11-25' ? EXPECTED_FAILURES : join(ROOT, 'test', 'integration', `conformance-${revision}-expected-failures.yml`);

export function conformanceVersion(dir = CONFORMANCE_DIR): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs the suite's CLI (`bin`: which release) under this Node; kills it (and says so) after `timeoutMs`. */
export function conformanceCli(args: string[], timeoutMs: number, bin = CONFORMANCE_BIN): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [bin, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      stderr += `\n[test] conformance CLI killed after ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/**
 * The scenarios of one side a revision's requirement set runs (`conformance list --<side> --requirements <revision>`,
 * the 2026 release): those it requires and scores, and those it runs and reports without scoring (extensions such as
 * tasks, pending ones), marked `[<side>]`.
 */
export async function listRequiredScenarios(
  revision: string,
  side: 'server' | 'client' = 'server',
  timeoutMs = 30_000,
): Promise<{ scored: string[]; unscored: string[] }> {
  const run = await conformanceCli(['list', `--${side}`, '--requirements', revision], timeoutMs, CONFORMANCE_2026_BIN);
  if (run.code !== 0) throw new Error(`conformance list --requirements ${revision} exited ${run.code}:\n${run.stderr}`);
  const heading = side === 'server' ? 'Server' : 'Client';
  const section = new RegExp(`${heading} scenarios[^\\n]*\\n([\\s\\S]*?)\\n\\s*\\n`).exec(run.stdout)?.[1] ?? '';
  const scored = [...section.matchAll(/^\s*-\s+([a-z0-9][\w/-]*)\s*$/gm)].map((m) => m[1]!);
  const unscored = [...run.stdout.matchAll(new RegExp(`^\\s*-\\s+([a-z0-9][\\w/-]*)\\s+\\[${side}\\]\\s*$`, 'gm'))].map((m) => m[1]!);
  if (scored.length === 0) throw new Error(`conformance list --requirements ${revision} named no ${side} scenario:\n${run.stdout}`);
  return { scored, unscored };
}

/** Every scenario of one side the installed suite has (`conformance list --server` or `--client`). */
export async function listScenarios(side: 'server' | 'client', timeoutMs = 30_000, extra: string[] = [], bin = CONFORMANCE_BIN): Promise<string[]> {
  const run = await conformanceCli(['list', `--${side}`, ...extra], timeoutMs, bin);
  if (run.code !== 0) throw new Error(`conformance list --${side} exited ${run.code}:\n${run.stderr}`);
  const names = [...run.stdout.matchAll(/^\s*-\s+([a-z0-9][\w/-]*)(?:\s+\[[^\]]*\])?\s*$/gm)].map((m) => m[1]!);
  if (names.length === 0) throw new Error(`conformance list --${side} named no scenario:\n${run.stdout}`);
  return names;
}

export interface Check {
  id: string;
  name?: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/** As the suite's baseline judges a scenario: it failed if any check is a FAILURE or a WARNING. */
export function scenarioFailed(checks: Check[]): boolean {
  return checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING');
}

/** What went wrong in a scenario, one line: its failing checks' ids and messages. */
export function failureSummary(checks: Check[]): string {
  return checks
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.id} ${c.status}${c.errorMessage ? `: ${c.errorMessage}` : ''}`)
    .join('; ');
}

/**
 * The checks of each scenario from a run's output directory, where the suite
 * writes `server-<scenario>-<timestamp>/checks.json` for every scenario it ran.
 */
export function readResults(outputDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(outputDir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(outputDir, entry, 'checks.json');
    if (!m || !existsSync(file)) continue;
    results.set(m[1]!, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  }
  return results;
}

/** A client run's checks: `<scenario>-<timestamp>/checks.json`, a scenario with a slash (`auth/…`) one folder down. */
export function readClientResults(outputDir: string, prefix = ''): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(outputDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const m = /^(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    const file = join(outputDir, entry.name, 'checks.json');
    if (m && existsSync(file)) results.set(`${prefix}${m[1]!}`, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
    else if (!m && !prefix) for (const [k, v] of readClientResults(join(outputDir, entry.name), `${entry.name}/`)) results.set(k, v);
  }
  return results;
}

/** What the client wrote to stderr in a scenario (the suite keeps it beside the scenario's checks), or ''. */
export function clientStderr(outputDir: string, scenario: string): string {
  const slash = scenario.lastIndexOf('/');
  const dir = join(outputDir, scenario.slice(0, slash + 1));
  const name = scenario.slice(slash + 1);
  if (!existsSync(dir)) return '';
  const run = readdirSync(dir).find((entry) => entry.startsWith(`${name}-`) && /^-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.test(entry.slice(name.length)));
  const file = run ? join(dir, run, 'stderr.txt') : '';
  return file && existsSync(file) ? readFileSync(file, 'utf8') : '';
}

export interface ExpectedFailure {
  scenario: string;
  reason: string;
}

/**
 * The `server` list of the expected-failures file, each entry with its
 * reason: the comment block above it, or above the group it belongs to (an
 * entry without a comment of its own shares the reason of the one before).
 * The file is the suite's own baseline (its CLI reads it with
 * --expected-failures and ignores the comments); the reasons are for people
 * and for the test, which refuses an entry without one.
 */
export function readExpectedFailures(path = EXPECTED_FAILURES, side: 'server' | 'client' = 'server'): ExpectedFailure[] {
  const doc = parseDocument(readFileSync(path, 'utf8'));
  if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
  const server = doc.get(side, true);
  if (server === undefined || server === null) return [];
  if (!isSeq(server)) throw new Error(`${path}: '${side}' must be a list of scenario names`);
  const out: ExpectedFailure[] = [];
  let reason = '';
  server.items.forEach((item, i) => {
    if (!isScalar(item) || typeof item.value !== 'string') throw new Error(`${path}: ${side}[${i}] is not a scenario name`);
    // The yaml parser gives the comment above the first item to the list itself.
    const comment = item.commentBefore ?? (i === 0 ? server.commentBefore : undefined);
    if (comment)
      reason = comment
        .replace(/^ /gm, '')
        .replace(/\s*\n\s*/g, ' ')
        .trim();
    out.push({ scenario: item.value, reason: item.comment ? `${reason} ${item.comment.trim()}`.trim() : reason });
  });
  return out;
}

export interface Verdict {
  passed: string[];
  expectedFailures: string[];
  /** Failed and not in the file: a regression (or a new scenario to triage). */
  unexpectedFailures: string[];
  /** In the file but passed: remove the entry. */
  stale: string[];
  /** In the file but not a scenario of this suite. */
  unknown: string[];
  /** Listed by the suite but no checks.json came back. */
  missing: string[];
}

export function judge(scenarios: string[], results: Map<string, Check[]>, expected: ExpectedFailure[]): Verdict {
  const listed = new Set(expected.map((e) => e.scenario));
  const verdict: Verdict = { passed: [], expectedFailures: [], unexpectedFailures: [], stale: [], unknown: [], missing: [] };
  for (const scenario of scenarios) {
    const checks = results.get(scenario);
    if (!checks || checks.length === 0) {
      verdict.missing.push(scenario);
      continue;
    }
    const failed = scenarioFailed(checks);
    if (failed && listed.has(scenario)) verdict.expectedFailures.push(scenario);
    else if (failed) verdict.unexpectedFailures.push(scenario);
    else if (listed.has(scenario)) verdict.stale.push(scenario);
    else verdict.passed.push(scenario);
  }
  verdict.unknown = [...listed].filter((s) => !scenarios.includes(s));
  return verdict;
}
