// `airlock keys set PROFILE | rm PROFILE | ls`: API keys in the OS keychain
// (or the opted-in file store). The secret comes from stdin or a hidden
// prompt, never from argv; listings show fingerprints only.
import type { SecretStore } from '../../core/secrets/secretStore.ts';
import { createKeychainStore } from '../../core/secrets/keychainStore.ts';
import { createFileStore, fileStoreBanner } from '../../core/secrets/fileStore.ts';
import { fingerprint } from '../../core/secrets/fingerprint.ts';
import { readSecretFromStdin } from '../../core/secrets/readSecret.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import type { CliContext } from '../context.ts';
import { PROFILE_NAME } from '../../core/profiles/profile.ts';

export function secretStoreFor(ctx: CliContext): SecretStore {
  if (ctx.settings.secretStore === 'file') {
    const path = dataPaths(ctx.settings.dataDir).secretsFile;
    process.stderr.write(fileStoreBanner(path) + '\n');
    return createFileStore({ path });
  }
  return createKeychainStore();
}

export async function keysSet(ctx: CliContext, profile: string): Promise<void> {
  const store = secretStoreFor(ctx);
  const secret = await readSecretFromStdin({ input: process.stdin, output: process.stderr, prompt: `API key for profile ${profile}: ` });
  await store.set(profile, secret);
  process.stdout.write(`Saved the key for ${profile} in the ${store.kind} (${fingerprint(secret)}).\n`);
}

export async function keysRemove(ctx: CliContext, profile: string): Promise<number> {
  const removed = await secretStoreFor(ctx).delete(profile);
  process.stdout.write(removed ? `Removed the key for ${profile}.\n` : `Profile ${profile} had no key.\n`);
  return removed ? 0 : 1;
}

export async function keysList(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const store = secretStoreFor(ctx);
  const rows: { profile: string; fingerprint: string; store: string }[] = [];
  // MCP servers' secrets (mcp-server:<name>:<VAR>) are listed by `airlock servers`, not here.
  for (const profile of (await store.list()).filter((n) => PROFILE_NAME.test(n))) {
    const secret = await store.get(profile);
    if (secret) rows.push({ profile, fingerprint: fingerprint(secret), store: store.kind });
  }
  if (options.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  if (rows.length === 0) {
    process.stdout.write(
      `No keys in the ${store.kind}. Add one with \`airlock keys set <profile>\` (or start Airlock with an API's key in AIRLOCK_KEY_<API>, its name in capitals).\n`,
    );
    return;
  }
  const width = Math.max(...rows.map((r) => r.profile.length));
  for (const r of rows) process.stdout.write(`${r.profile.padEnd(width)}  ${r.fingerprint}  (${r.store})\n`);
}
