// `npm test` (and `npm run test:quick`): the checks and the test tiers, each
// the npm script of its name, run side by side where they share nothing (no
// tier binds a fixed port, each test makes its own data dir, the keychain
// tier brings its own D-Bus session and HOME, the browser is headless). The
// build comes first: the unit tier checks the built bundles, the integration
// and e2e tiers serve them. A tier's output is kept in a log file and shown
// in full when it fails; the end is a table of every tier with its time and
// its counts. Exit code 1 if any tier failed or ran out of time, 2 on a bad
// argument.
//
//   node scripts/test.ts                 every tier (npm test)
//   node scripts/test.ts lint unit       those tiers only (npm run test:quick: lint, typecheck, unit)
//   --jobs N (AIRLOCK_TEST_JOBS)         processes at once (default 3), lint and typecheck beside them, one at
//                                        a time (Tier.beside); tests within a tier have their own concurrency
//                                        (package.json)
//   --verbose                            every tier's output, not only a failing one's
//
// Every tier has a deadline (deadlineMin): past it, its whole process group
// is killed and the tier fails, saying so. Each test has its own deadline
// (--test-timeout in package.json) well inside it.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Tier {
  name: string;
  /** The npm script it runs. */
  script: string;
  /** Run as this many processes at once, each with AIRLOCK_TEST_SHARD=i/n, which the script passes to node --test as
   * --test-shard=i/n (node --test splits the files between them). */
  shards?: number;
  /** Tiers that must have passed before it starts. */
  after?: string[];
  /** Its deadline, in minutes. */
  deadlineMin: number;
  /** Set for its processes. */
  env?: Record<string, string>;
  /**
   * A check that runs on one thread and touches no port, data dir or keychain (lint, typecheck): it runs in a lane of
   * its own beside the --jobs slots, one such check at a time, on the CPU the two longest tiers leave idle (measured:
   * ~0.6 of the 2 cores, their time spent waiting on processes, sockets and npm).
   */
  beside?: boolean;
}

const BUILT = { AIRLOCK_TEST_CLI: 'built' };

/** In the order they start when a slot frees up: the longest first, so the last to finish is a short one. */
const TIERS: Tier[] = [
  { name: 'build', script: 'build', deadlineMin: 5 },
  // They run the built CLI (test/helpers/paths.ts): the JavaScript that ships, which starts for less CPU than the sources.
  { name: 'integration', script: 'test:integration', after: ['build'], deadlineMin: 15, env: BUILT },
  { name: 'e2e', script: 'test:e2e', after: ['build'], deadlineMin: 12, env: BUILT },
  // engines, lint and typecheck wait for the build, though they do not need it: the two longest tiers (integration, e2e)
  // then start together at once, and the shorter ones fill in behind them (measured: e2e waiting for engines was the
  // run's critical path).
  { name: 'engines', script: 'test:engines', after: ['build'], deadlineMin: 12 },
  { name: 'unit', script: 'test:unit', shards: 2, after: ['build'], deadlineMin: 8 },
  { name: 'lint', script: 'lint', after: ['build'], deadlineMin: 5, beside: true },
  { name: 'typecheck', script: 'typecheck', after: ['build'], deadlineMin: 5, beside: true },
  { name: 'keychain', script: 'test:keychain', deadlineMin: 11 },
  { name: 'electron', script: 'test:electron', after: ['build'], deadlineMin: 8 },
];

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const jobsArg = args.includes('--jobs') ? args[args.indexOf('--jobs') + 1] : process.env.AIRLOCK_TEST_JOBS;
const jobs = Number(jobsArg ?? 3);
const names = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--jobs');
const unknown = names.filter((n) => !TIERS.some((t) => t.name === n));
if (unknown.length > 0 || !Number.isInteger(jobs) || jobs < 1) {
  process.stderr.write(
    `${unknown.length > 0 ? `no tier ${unknown.join(', ')}` : `--jobs takes a whole number ≥ 1, not ${jobsArg}`}; tiers: ${TIERS.map((t) => t.name).join(', ')}\n`,
  );
  process.exit(2);
}
const selected = names.length > 0 ? TIERS.filter((t) => names.includes(t.name)) : TIERS;
const logDir = mkdtempSync(join(tmpdir(), 'airlock-test-logs-'));

/** One process of a tier: the tier itself, or one of its shards. */
interface Job {
  tier: Tier;
  name: string;
  env: Record<string, string>;
}
type Status = 'passed' | 'failed' | 'timed out' | 'not run';
interface Outcome {
  job: Job;
  status: Status;
  startedAt: number;
  endedAt: number;
  log: string;
  why?: string;
}

const started = performance.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const elapsed = () => seconds(performance.now() - started).padStart(8);
const say = (line: string) => process.stdout.write(`${elapsed()}  ${line}\n`);

function run(job: Job): Promise<Outcome> {
  const log = join(logDir, `${job.name.replace(/\W+/g, '-')}.log`);
  const out = createWriteStream(log);
  const startedAt = performance.now();
  say(`▶ ${job.name}`);
  return new Promise((resolve) => {
    // Its own process group, so the deadline takes everything the tier started.
    const child = spawn('npm', ['run', '--silent', job.tier.script], {
      cwd: root,
      // The machine's own managed policy (/etc/airlock/managed.json on an organisation's laptop) never shapes a test:
      // each tier sees none unless a test gives one (AIRLOCK_MANAGED_FILE, as a test that needs one sets it).
      env: { AIRLOCK_MANAGED_FILE: join(logDir, 'no-managed-policy.json'), ...process.env, ...job.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    let timedOut = false;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 10_000).unref();
    }, job.tier.deadlineMin * 60_000);
    let ended = false;
    const finish = (code: number | null, why?: string) => {
      if (ended) return;
      ended = true;
      clearTimeout(deadline);
      // Whatever the tier left behind in its group (a server a test leaked) goes with it.
      kill('SIGKILL');
      out.end(() => {
        const status: Status = timedOut ? 'timed out' : code === 0 ? 'passed' : 'failed';
        const reason = why ?? (timedOut ? `over its ${job.tier.deadlineMin} min deadline` : undefined);
        resolve({ job, status, startedAt, endedAt: performance.now(), log, ...(reason ? { why: reason } : {}) });
      });
    };
    child.on('error', (error) => finish(1, error.message));
    child.on('close', (code) => finish(code));
  });
}

/** What a node --test run reports at its end: ℹ tests 662, pass 660… */
function counts(text: string): string {
  const pick = (key: string) => new RegExp(`^ℹ ${key} (\\d+)$`, 'm').exec(text)?.[1];
  return ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo']
    .map((k) => [k, pick(k)] as const)
    .filter(([k, v]) => v !== undefined && (k === 'tests' || k === 'pass' || v !== '0'))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

function report(o: Outcome): void {
  const text = readFileSync(o.log, 'utf8');
  const c = counts(text);
  say(`${o.status === 'passed' ? '✔' : '✖'} ${o.job.name} ${o.status} in ${seconds(o.endedAt - o.startedAt)}${c ? ` (${c})` : ''}${o.why ? `: ${o.why}` : ''}`);
  // A skipped test says why in one line: shown here too, so nothing is skipped unseen.
  for (const line of text.split('\n').filter((l) => /# skip\b/i.test(l) || /^the keychain test: skip/.test(l)))
    process.stdout.write(`            ${line.trim()}\n`);
  if (o.status !== 'passed' || verbose) {
    process.stdout.write(`──── ${o.job.name}: its output (${o.log}) ────\n${text}${text.endsWith('\n') ? '' : '\n'}──── end of ${o.job.name} ────\n`);
  }
}

const waiting: Job[] = selected.flatMap((tier) =>
  tier.shards && tier.shards > 1
    ? Array.from({ length: tier.shards }, (_, i) => ({
        tier,
        name: `${tier.name} ${i + 1}/${tier.shards}`,
        env: { ...tier.env, AIRLOCK_TEST_SHARD: `${i + 1}/${tier.shards}` },
      }))
    : [{ tier, name: tier.name, env: { ...tier.env } }],
);
const outcomes: Outcome[] = [];
/** A tier's state: passed once all its jobs passed, failed once one did not. */
function tierStatus(name: string): Status | 'running' | 'unselected' {
  const tier = selected.find((t) => t.name === name);
  if (!tier) return 'unselected';
  const mine = outcomes.filter((o) => o.job.tier === tier);
  const failed = mine.find((o) => o.status !== 'passed');
  if (failed) return failed.status;
  return mine.length === (tier.shards ?? 1) ? 'passed' : 'running';
}

const besideNames = selected
  .filter((t) => t.beside)
  .map((t) => t.name)
  .join(' and ');
say(
  `${selected.map((t) => t.name).join(', ')}: ${jobs} processes at once${besideNames ? `, ${besideNames} beside them one at a time` : ''}; logs in ${logDir}`,
);
const running = new Set<Promise<void>>();
/** The jobs running beside the slots (Tier.beside): one at a time. */
const besideRunning = new Set<Promise<void>>();
const slotsTaken = () => running.size - besideRunning.size;
while (waiting.length > 0 || running.size > 0) {
  // A job whose prerequisite failed is not run; one whose prerequisite is not selected runs as is.
  for (const job of [...waiting]) {
    const blocked = (job.tier.after ?? []).find((n) => !['passed', 'running', 'unselected'].includes(tierStatus(n)));
    if (blocked) {
      waiting.splice(waiting.indexOf(job), 1);
      const now = performance.now();
      const o: Outcome = { job, status: 'not run', startedAt: now, endedAt: now, log: '', why: `${blocked} ${tierStatus(blocked)}` };
      outcomes.push(o);
      say(`✖ ${job.name} not run: ${o.why}`);
    }
  }
  const ready = waiting.find(
    (j) =>
      (j.tier.after ?? []).every((n) => ['passed', 'unselected'].includes(tierStatus(n))) &&
      (slotsTaken() < jobs || (j.tier.beside === true && besideRunning.size === 0)),
  );
  if (ready) {
    waiting.splice(waiting.indexOf(ready), 1);
    const p: Promise<void> = run(ready).then((o) => {
      outcomes.push(o);
      report(o);
      running.delete(p);
      besideRunning.delete(p);
    });
    running.add(p);
    // A free slot if there is one (test:quick has them), else the lane beside the slots.
    if (ready.tier.beside && slotsTaken() > jobs) besideRunning.add(p);
    continue;
  }
  if (running.size === 0) break;
  await Promise.race(running);
}

const total = performance.now() - started;
const width = Math.max(...selected.map((t) => t.name.length), 3);
process.stdout.write(`\n${'tier'.padEnd(width)}  ${'result'.padEnd(9)}  ${'time'.padStart(8)}  from    to\n`);
for (const tier of selected) {
  const mine = outcomes.filter((o) => o.job.tier === tier);
  const from = Math.min(...mine.map((o) => o.startedAt)) - started;
  const to = Math.max(...mine.map((o) => o.endedAt)) - started;
  const status = tierStatus(tier.name);
  process.stdout.write(
    `${tier.name.padEnd(width)}  ${String(status).padEnd(9)}  ${seconds(to - from).padStart(8)}  ${seconds(from).padStart(7)} ${seconds(to).padStart(7)}\n`,
  );
}
const failed = selected.filter((t) => tierStatus(t.name) !== 'passed');
process.stdout.write(
  `${'all'.padEnd(width)}  ${(failed.length ? 'failed' : 'passed').padEnd(9)}  ${seconds(total).padStart(8)}  (wall clock, ${jobs} at once${besideNames ? `, ${besideNames} beside them` : ''})\n`,
);
if (failed.length) process.stdout.write(`failed: ${failed.map((t) => `${t.name} (${tierStatus(t.name)})`).join(', ')}; logs in ${logDir}\n`);
process.exit(failed.length ? 1 : 0);
