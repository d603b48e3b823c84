// `npm start`: build what is missing, then start the companion on the demo
// API — the desktop app where the Electron binary is installed, otherwise
// `airlock serve --ui` with the web UI opened in the default browser.
import { existsSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const cli = join(root, 'main', 'cli', 'airlock.js');
const run = (command: string, args: string[]) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

if (!existsSync(join(root, 'out', 'renderer', 'index.html')) || process.argv.includes('--rebuild')) {
  process.stderr.write('Building the app (electron-vite build)…\n');
  if (run(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build']) !== 0) process.exit(1);
}

function electronBinary(): string | undefined {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const electron = electronBinary();
if (electron && !process.argv.includes('--web')) {
  process.exit(run(electron, [join(root, 'out', 'main', 'main.js')]));
}
process.stderr.write(electron ? 'Starting the web UI (--web).\n' : 'No Electron binary here: starting the companion with its web UI in your browser.\n');
const serve = spawn(process.execPath, [cli, 'serve', '--ui', ...process.argv.slice(2).filter((a) => a !== '--web' && a !== '--rebuild')], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'pipe'],
});
let opened = false;
serve.stderr.setEncoding('utf8').on('data', (chunk: string) => {
  process.stderr.write(chunk);
  if (!opened && /serving .* on http/.test(chunk)) {
    opened = true;
    const dataDirIndex = process.argv.indexOf('--data-dir');
    const extra = dataDirIndex > 0 ? ['--data-dir', process.argv[dataDirIndex + 1]!] : [];
    const open = spawnSync(process.execPath, [cli, 'open', ...extra], { cwd: root, stdio: 'inherit' });
    if (open.status !== 0) spawnSync(process.execPath, [cli, 'open', '--print', ...extra], { cwd: root, stdio: 'inherit' });
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => serve.kill(signal));
serve.on('exit', (code) => process.exit(code ?? 0));
