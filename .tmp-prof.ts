// Profiles search_docs across the 4 APIs in a stdio --in-process child.
import { startRawClient, timeEach, percentile } from './bench/rawMcpClient.ts';
const QUERIES = ['list events in Paris', 'create a repository', 'refund a charge', 'delete an event', 'list pull requests of a repository', 'create a customer', 'search agendas', 'get the authenticated user', 'cancel a subscription', 'list locations of an agenda'];
const extra = (process.env.NODEFLAGS ?? '').split(' ').filter(Boolean);
const client = await startRawClient({ command: process.execPath, args: [...extra, '/work/main/dist/cli/airlock.js', 'stdio', '--in-process', '--data-dir', '/tmp/d4', '--log-level', 'error'], timeoutMs: 120_000 });
await client.request('tools/list');
await timeEach(50, (i) => client.call('search_docs', { query: QUERIES[i % QUERIES.length]!, limit: 8 }));
const times = await timeEach(Number(process.argv[2] ?? 400), (i) => client.call('search_docs', { query: QUERIES[i % QUERIES.length]!, limit: 8 }));
console.log(`p50 ${percentile(times, 50).toFixed(2)} p95 ${percentile(times, 95).toFixed(2)}`);
await client.close();
