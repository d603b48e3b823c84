// Tests that need tools from the system say so. Where a tool is missing, the
// test (or the whole suite) is skipped with one line naming what to install:
//   skip: needs bubblewrap socat ripgrep (apt-get install bubblewrap socat ripgrep)
// unless AIRLOCK_REQUIRE_ALL=1 (.ci/run sets it), where the same line is a
// failure instead: the srt wrapper is a security boundary, and CI must never
// skip it without anyone noticing.
//
// Tools are looked up on PATH exactly as the code under test looks them up
// (hostTools' `which`), so hiding them from PATH (pathWithout, below) is a
// faithful stand-in for a machine that does not have them.
//
// Usage:
//   describeWithTools('the srt wrapper', SRT, () => { ...suites and tests... });
//   test('...', async (t) => { if (!requireTools(t, DENO)) return; ... });
//   const skip = skipUnlessTools(CHROMIUM); test('...', { skip }, ...);
// From a shell script (test/helpers/keychain-e2e.sh):
//   node test/helpers/systemTools.ts keyring   # exit 0: present; 3: skipped (line printed); 1: required and missing
import { describe, test, type TestContext } from 'node:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { hostPath, which } from '../../main/core/sandbox/subprocess/hostTools.ts';
import { denoNpmPackages, findDeno } from '../../main/core/sandbox/deno/findDeno.ts';
import { ROOT } from './paths.ts';

export interface SystemNeed {
  /** What needs the tools (the name of the failing test under AIRLOCK_REQUIRE_ALL=1). */
  why: string;
  /** Executables that must be on PATH. */
  tools?: string[];
  /** A check that is not a PATH lookup (Deno from npm): the names of what is missing, empty when all is there. */
  check?: () => string[];
  /** What provides them, as the line names it (the apt packages). */
  packages: string;
  /** How to install them; default `apt-get install <packages>`. */
  install?: string;
}

/** Set by .ci/run: a missing tool fails instead of skipping. */
export function requireAll(): boolean {
  return process.env.AIRLOCK_REQUIRE_ALL === '1';
}

/** bubblewrap, socat and ripgrep: what srt (the `wrapper` egress mode) needs on Linux. */
export const SRT: SystemNeed = {
  why: 'the srt wrapper',
  tools: process.platform === 'linux' ? ['bwrap', 'socat', 'rg'] : [],
  packages: 'bubblewrap socat ripgrep',
};

let denoFound: boolean | undefined;
/** Deno, on PATH or from its npm package (an optional dependency). */
export const DENO: SystemNeed = {
  why: 'the deno engine',
  check: () => {
    denoFound ??= findDeno().found;
    return denoFound ? [] : ['deno'];
  },
  packages: 'Deno',
  install: `npm i ${denoNpmPackages()[0] ?? 'deno'}`,
};

/** Deno's npm package itself (findDeno's npm fallback). */
export const DENO_NPM: SystemNeed = {
  why: "Deno's npm package",
  check: () => {
    const found = findDeno({ path: '' });
    return found.found && found.source === 'npm' ? [] : [denoNpmPackages()[0] ?? 'deno'];
  },
  packages: `the npm package ${denoNpmPackages()[0] ?? 'of Deno'}`,
  install: `npm i ${denoNpmPackages()[0] ?? 'deno'}`,
};

/** A throw-away Secret Service: gnome-keyring under a private D-Bus session (test/helpers/with-keyring.sh). */
export const KEYRING: SystemNeed = {
  why: 'the keychain test',
  tools: ['dbus-run-session', 'gnome-keyring-daemon', 'gdbus'],
  packages: 'gnome-keyring dbus libglib2.0-bin',
};

/** The `claude` CLI from @anthropic-ai/claude-code (a dev dependency; its postinstall fetches the native binary). */
export const CLAUDE_CLI: SystemNeed = {
  why: 'the Claude Code registration test',
  check: () => (existsSync(join(ROOT, 'node_modules', '.bin', 'claude')) ? [] : ['claude']),
  packages: 'the npm package @anthropic-ai/claude-code',
  install: 'npm ci (with its install script allowed in package.json)',
};

/** Debian's Chromium, which the e2e tier drives (AIRLOCK_CHROMIUM names another binary). */
export const CHROMIUM: SystemNeed = {
  why: 'the browser tests',
  check: () => {
    const path = process.env.AIRLOCK_CHROMIUM ?? '/usr/bin/chromium';
    return existsSync(path) ? [] : [path];
  },
  packages: 'chromium',
};

/** Debian's Prometheus, which scrapes the companion's /metrics in its test. */
export const PROMETHEUS: SystemNeed = {
  why: 'the Prometheus test',
  tools: ['prometheus'],
  packages: 'prometheus',
};

/** Debian's rsyslog, which receives the audit records forwarded to syslog in its test. */
export const RSYSLOG: SystemNeed = {
  why: 'the syslog test',
  check: () => (['/usr/sbin/rsyslogd', '/sbin/rsyslogd'].some((p) => existsSync(p)) ? [] : ['rsyslogd']),
  packages: 'rsyslog',
};

/** The needs a shell script can ask about by name. */
const BY_NAME: Record<string, SystemNeed> = { srt: SRT, deno: DENO, keyring: KEYRING, chromium: CHROMIUM };

export interface Gap {
  /** `needs <packages> (<install>)`, for every need that has something missing, joined by `; `. */
  line: string;
  /** The executables (or packages) not found. */
  missing: string[];
  why: string;
}

/** What is missing for these needs, or undefined when everything is there. */
export function gapFor(needs: SystemNeed | SystemNeed[]): Gap | undefined {
  const lines: string[] = [];
  const missing: string[] = [];
  const why: string[] = [];
  for (const need of Array.isArray(needs) ? needs : [needs]) {
    const absent = [...(need.tools ?? []).filter((tool) => !which(tool)), ...(need.check?.() ?? [])];
    if (absent.length === 0) continue;
    lines.push(`needs ${need.packages} (${need.install ?? `apt-get install ${need.packages}`})`);
    missing.push(...absent);
    why.push(need.why);
  }
  return lines.length === 0 ? undefined : { line: lines.join('; '), missing, why: why.join(' and ') };
}

/** The error a missing tool is under AIRLOCK_REQUIRE_ALL=1: the skip line, then what exactly was not found. */
export class MissingToolError extends Error {
  constructor(gap: Gap) {
    super(`${gap.line} [missing: ${gap.missing.join(', ')}; AIRLOCK_REQUIRE_ALL=1 makes this a failure, not a skip]`);
    this.name = 'MissingToolError';
  }
}

/**
 * Inside a test: true when the tools are there. Otherwise the test is skipped
 * with the one line (and false is returned: `if (!requireTools(t, SRT)) return;`),
 * or, under AIRLOCK_REQUIRE_ALL=1, it fails with that line.
 */
export function requireTools(t: TestContext, needs: SystemNeed | SystemNeed[]): boolean {
  const gap = gapFor(needs);
  if (!gap) return true;
  if (requireAll()) throw new MissingToolError(gap);
  t.skip(`skip: ${gap.line}`);
  return false;
}

/**
 * A suite that needs tools: `describe(name, fn)` when they are there;
 * otherwise one skipped suite that says what to install (its tests are not
 * even collected), or, under AIRLOCK_REQUIRE_ALL=1, one failing test with
 * that line.
 */
export function describeWithTools(name: string, needs: SystemNeed | SystemNeed[], fn: () => void): void {
  const gap = gapFor(needs);
  if (!gap) {
    describe(name, fn);
  } else if (requireAll()) {
    test(name, () => {
      throw new MissingToolError(gap);
    });
  } else {
    describe(name, { skip: `skip: ${gap.line}` }, fn);
  }
}

/**
 * For `{ skip }` options: the skip reason (`skip: needs …`) when something is
 * missing, else false. Under AIRLOCK_REQUIRE_ALL=1 it never skips: it adds one
 * failing test with the line instead (once per file and need).
 */
export function skipUnlessTools(needs: SystemNeed | SystemNeed[]): string | false {
  const gap = gapFor(needs);
  if (!gap) return false;
  if (!requireAll()) return `skip: ${gap.line}`;
  if (!reported.has(gap.line)) {
    reported.add(gap.line);
    test(`${gap.why}: system tools`, () => {
      throw new MissingToolError(gap);
    });
  }
  return false;
}
const reported = new Set<string>();

/**
 * A PATH with these executables taken out: each PATH directory that holds
 * one of them is replaced by a temp directory of symlinks to everything else
 * in it. For tests of what happens on a machine without the tools.
 */
export function pathWithout(hidden: string[], path: string = hostPath()): { path: string; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'airlock-hidden-tools-'));
  const dirs = path.split(delimiter).map((dir, i) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return dir;
    }
    if (!hidden.some((name) => entries.includes(name))) return dir;
    const mirror = join(root, String(i));
    mkdirSync(mirror);
    for (const entry of entries) if (!hidden.includes(entry)) symlinkSync(join(dir, entry), join(mirror, entry));
    return mirror;
  });
  return { path: dirs.join(delimiter), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

// As a command, for shell scripts: prints nothing and exits 0 when the named
// need is met; prints the skip line and exits 3, or (AIRLOCK_REQUIRE_ALL=1)
// prints the failure and exits 1.
if (import.meta.main) {
  const name = process.argv[2] ?? '';
  const need = BY_NAME[name];
  if (!need) {
    process.stderr.write(`usage: node test/helpers/systemTools.ts <${Object.keys(BY_NAME).join('|')}>\n`);
    process.exit(2);
  }
  const gap = gapFor(need);
  if (!gap) process.exit(0);
  if (requireAll()) {
    process.stderr.write(`${need.why}: ${new MissingToolError(gap).message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${need.why}: skip: ${gap.line}\n`);
  process.exit(3);
}
