// How long the redactor takes on what it sees most: a log line, a typical
// JSON response, and the largest response the gate accepts (10 MB), with and
// without the key inside. `node bench/redactor.bench.ts`
import { createRedactor } from '../main/core/log/redactor.ts';

const KEY = 'sk_live_BENCH_0123456789abcdef0123';
const redact = createRedactor([KEY]);

function json(bytes: number, withKey: boolean): string {
  const item = {
    id: 'evt_a1b2c3d4e5',
    title: 'Concert in the park',
    description: 'An evening of music under the trees, free entry.',
    tags: ['music', 'outdoor'],
    price: 0,
    url: 'https://example.org/events/evt_a1b2c3d4e5?ref=list',
  };
  const items: unknown[] = [];
  let size = 2;
  while (size < bytes) {
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  if (withKey) items.splice(Math.floor(items.length / 2), 0, { echo: Buffer.from(`Bearer ${KEY}`).toString('base64') });
  return JSON.stringify(items);
}

function p50(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const cases: [string, string, number][] = [
  ['1 KB log line', 'airlock info [gate] GET https://api.example.org/v3/events?limit=20 → 200 in 12 ms '.repeat(12).slice(0, 1024), 2000],
  ['100 KB JSON, no key', json(100_000, false), 50],
  ['100 KB JSON, key in base64', json(100_000, true), 50],
  ['10 MB JSON, no key', json(10_000_000, false), 5],
  ['10 MB JSON, key in base64', json(10_000_000, true), 5],
];
for (const [name, text, runs] of cases) {
  redact(text);
  console.log(`${name.padEnd(30)} p50 ${p50(() => redact(text), runs).toFixed(2)} ms`);
}
