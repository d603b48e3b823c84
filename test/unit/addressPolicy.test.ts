import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, resolveAllowedAddress } from '../../main/core/util/addressPolicy.ts';

test('addresses are classified (IPv4, IPv6, mapped, metadata)', () => {
  const cases: [string, string][] = [
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['fd00:ec2::254', 'metadata'],
    ['2606:4700:4700::1111', 'public'],
    ['64:ff9b::a00:1', 'private'],
    ['100.100.100.200', 'metadata'],
  ];
  for (const [addr, cls] of cases) assert.equal(classifyAddress(addr), cls, addr);
});

test('a DNS name that resolves to a private, loopback or metadata address is refused', async () => {
  const resolver = (map: Record<string, string[]>) => async (h: string) =>
    (map[h] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const r = resolver({
    'api.test': ['93.184.216.34'],
    'inner.test': ['10.0.0.5'],
    'rebind.test': ['93.184.216.34', '127.0.0.1'],
    'meta.test': ['169.254.169.254'],
  });
  assert.deepEqual(await resolveAllowedAddress('api.test', { allowPrivateNetwork: false, resolver: r }), { address: '93.184.216.34', family: 4 });
  await assert.rejects(resolveAllowedAddress('inner.test', { allowPrivateNetwork: false, resolver: r }), /resolves to 10\.0\.0\.5 \(private\)/);
  await assert.rejects(resolveAllowedAddress('rebind.test', { allowPrivateNetwork: false, resolver: r }), /127\.0\.0\.1 \(loopback\)/);
  // allowPrivateNetwork opens private networks, never metadata.
  assert.equal((await resolveAllowedAddress('inner.test', { allowPrivateNetwork: true, resolver: r })).address, '10.0.0.5');
  await assert.rejects(resolveAllowedAddress('meta.test', { allowPrivateNetwork: true, resolver: r }), /metadata/);
});

test('a literal origin is used as configured (local dev API, built-in demo), except metadata', async () => {
  assert.deepEqual(await resolveAllowedAddress('127.0.0.1', { allowPrivateNetwork: false }), { address: '127.0.0.1', family: 4 });
  assert.deepEqual(await resolveAllowedAddress('localhost', { allowPrivateNetwork: false }), { address: '127.0.0.1', family: 4 });
  assert.deepEqual(await resolveAllowedAddress('[::1]', { allowPrivateNetwork: false }), { address: '::1', family: 6 });
  await assert.rejects(resolveAllowedAddress('169.254.169.254', { allowPrivateNetwork: true }), /metadata/);
});
