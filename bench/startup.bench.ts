// npm run bench:startup — from spawning the companion to its answer to
// `initialize`, and its memory once idle.
//   node bench/startup.bench.ts [--runs N]
// - the floor: Node itself answering a line, and a minimal MCP SDK server;
// - `airlock stdio --in-process` (a private companion: the whole core) on the
//   demo API, from the built package (dist/cli, what npm and the .mcpb run)
//   and from the checkout (TypeScript sources), caches warm (the per-user
//   compile cache, the API cache in the data dir); the very first start of a
//   fresh data dir on its own line;
// - `airlock serve` on the demo API: spawn → listening → an HTTP initialize
//   answered;
// - GitHub's 1,223 operations: the first start of a data dir (the document
//   parsed, resolved and indexed) and later ones (restored from the API cache);
// - idle RSS of the demo companion one second after it answered.
// Target: ≤ 150 ms to initialize on the demo API; ≤ 100 ms for GitHub's
// catalogue and index to load on a later start (the `restored … in N ms` line
// the companion logs); idle RSS ≤ 100 MB.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FLOOR_ARGV, fmt, runs, serveToInitialize, timeToInitialize, type Start } from './spawnTiming.ts';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 15;
const root = resolve(import.meta.dirname, '..');
const checkoutCli = join(root, 'main', 'cli', 'airlock.js');
const builtCli = join(root, 'dist', 'cli', 'airlock.js');
const github = join(root, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');
/** Logged once every API served has loaded (and its cache is written). */
const LOADED = /APIs loaded: /;

const dir = mkdtempSync(join(tmpdir(), 'airlock-startup-'));
try {
  console.log(`spawn → answer to initialize, ${RUNS} runs each (Node ${process.versions.node})`);
  const floor = await runs(RUNS, () => timeToInitialize(FLOOR_ARGV));
  console.log(`  node itself (the floor)                        ${fmt(floor.map((s) => s.ms))}`);
  const sdk = await runs(RUNS, () => timeToInitialize([join(root, 'bench', 'floorServer.ts')]));
  console.log(`  a minimal MCP SDK server (TypeScript)          ${fmt(sdk.map((s) => s.ms))}`);

  for (const [label, cli] of [
    ['built package (dist/cli)', builtCli],
    ['checkout (TypeScript)   ', checkoutCli],
  ] as const) {
    if (!existsSync(cli)) {
      console.log(`  ${label}: not built (npm run build)`);
      continue;
    }
    const data = mkdtempSync(join(dir, 'demo-'));
    // The first start answers, then loads the API in the background and writes its cache: it is kept until it has.
    const first = await timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', data, '--log-level', 'info'], { waitFor: LOADED });
    const later = await runs(RUNS, () => timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', data, '--log-level', 'info'], { idleRss: false }));
    const idle = await timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', data, '--log-level', 'info'], { idleRss: true });
    console.log(`\n  ${label}, demo API, stdio --in-process:`);
    console.log(`    first start of a data dir                    ${first.ms.toFixed(0).padStart(4)} ms`);
    console.log(`    later starts                                 ${fmt(later.map((s) => s.ms))}   (target ≤ 150 ms)`);
    console.log(`    idle RSS, 1 s after answering                ${idle.rssMb?.toFixed(0)} MB   (target ≤ 100 MB)`);
    const serveData = mkdtempSync(join(dir, 'serve-'));
    const serveFirst = await serveToInitialize(cli, serveData);
    await timeToInitialize([cli, 'stdio', '--in-process', '--data-dir', serveData, '--log-level', 'info'], { waitFor: LOADED }); // the API cache
    const serve = [];
    for (let i = 0; i < Math.min(RUNS, 8); i++) serve.push(await serveToInitialize(cli, serveData));
    console.log(`    serve: spawn → HTTP initialize answered      ${fmt(serve)}   (first start of its data dir ${serveFirst.toFixed(0)} ms)`);
  }

  if (existsSync(github)) {
    const cli = existsSync(builtCli) ? builtCli : checkoutCli;
    const data = mkdtempSync(join(dir, 'github-'));
    const argv = [cli, 'stdio', '--in-process', '--data-dir', data, '--spec', github, '--auth', 'none', '--log-level', 'info'];
    const loadMs = (s: Start) => Number(/operations, .*\((?:loaded|restored from the cache) in (\d+) ms\)/.exec(s.stderr)?.[1] ?? NaN);
    // The first start writes the cache once it has loaded (--spec: before answering).
    const first = await timeToInitialize(argv, { waitFor: LOADED });
    const later = await runs(Math.min(RUNS, 8), () => timeToInitialize(argv));
    const hits = later.filter((s) => /restored from the cache/.test(s.stderr));
    console.log(`\n  GitHub (1,223 operations, 13 MB), ${cli === builtCli ? 'built package' : 'checkout'}:`);
    console.log(`    first start: catalogue + index built in ${loadMs(first)} ms; spawn → initialize ${first.ms.toFixed(0)} ms`);
    console.log(
      `    later starts (${hits.length}/${later.length} from the cache): catalogue + index ${fmt(later.map(loadMs))}   (target ≤ 100 ms); spawn → initialize ${fmt(later.map((s) => s.ms))}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
