// The floor behind one relay process: what an extra process between a client
// and a server costs by itself on this machine (stdin → relay → server →
// relay → stdout, bytes passed through untouched). `airlock stdio` joined to
// a companion has the same shape, so this is the least its overhead can be.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const server = spawn(process.execPath, [join(import.meta.dirname, 'floorServer.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(server.stdin);
server.stdout.pipe(process.stdout);
process.stdin.on('end', () => server.kill());
server.on('exit', () => process.exit(0));
