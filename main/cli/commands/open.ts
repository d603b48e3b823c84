// `airlock open [--print]`: a one-time login link for the web UI of the
// running companion (`airlock serve --ui`), opened in the default browser or
// printed. The link's token sits in the URL fragment (never sent in a
// request line), works once, for two minutes, and is never logged.
import { spawn } from 'node:child_process';
import type { ControlClient } from '../../core/control/controlClient.ts';

function browserCommand(url: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

export async function openCommand(client: ControlClient, options: { print?: boolean }): Promise<number> {
  const link = await client.call('ui.loginLink', {});
  if (options.print) {
    process.stdout.write(`${link.url}\n`);
    process.stderr.write(`(works once, until ${new Date(link.expiresAt).toLocaleTimeString()})\n`);
    return 0;
  }
  const { command, args } = browserCommand(link.url);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {
      process.stderr.write(`airlock: cannot start a browser (${command}); open this link yourself within two minutes:\n`);
      process.stdout.write(`${link.url}\n`);
      resolve(1);
    });
    child.on('spawn', () => {
      child.unref();
      process.stderr.write('Opened Airlock in your browser.\n');
      resolve(0);
    });
  });
}
