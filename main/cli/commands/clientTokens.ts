// airlock clients token add|list|revoke: HTTP clients' own tokens. Each is
// shown once, when made; the file keeps only hashes. A running companion
// reads the file again on its next request, so a revoked token is refused at
// once.
import { dataPaths, ensureDataDir } from '../../core/config/dataDir.ts';
import { openClientTokens } from '../../core/http/clientTokens.ts';
import { AirlockError } from '../../core/util/errors.ts';
import type { CliContext } from '../context.ts';

function store(ctx: CliContext) {
  const paths = dataPaths(ctx.settings.dataDir);
  ensureDataDir(paths.root);
  return openClientTokens(paths.clientTokens);
}

export function clientTokenAdd(ctx: CliContext, name: string, options: { apis: string[]; json?: boolean }): void {
  const { token, view } = store(ctx).create(name, options.apis);
  if (options.json) {
    process.stdout.write(JSON.stringify({ token, ...view }, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    [
      `Token for ${view.name} (sha256:${view.fingerprint}), reaching ${view.scope ? view.scope.join(', ') : 'every API served'}:`,
      '',
      `  ${token}`,
      '',
      'It is shown this once: give it to the client as its Authorization header (Bearer <token>) for /mcp.',
      `Revoke it with: airlock clients token revoke ${view.name}`,
      '',
    ].join('\n'),
  );
}

export function clientTokenList(ctx: CliContext, options: { json?: boolean }): void {
  const tokens = store(ctx).list();
  if (options.json) {
    process.stdout.write(JSON.stringify(tokens, null, 2) + '\n');
    return;
  }
  if (tokens.length === 0) {
    process.stdout.write('No client has a token of its own (every HTTP client uses the companion token). Make one: airlock clients token add <name>\n');
    return;
  }
  for (const t of tokens)
    process.stdout.write(`${t.name}  sha256:${t.fingerprint}  ${t.scope ? `reaches ${t.scope.join(', ')}` : 'every API served'}  made ${t.createdAt}\n`);
}

export function clientTokenRevoke(ctx: CliContext, name: string): void {
  if (!store(ctx).revoke(name)) throw new AirlockError('not_found', `no client token named '${name}'`, { hint: 'airlock clients token list names them' });
  process.stdout.write(`Revoked the token of ${name}: its next request is refused.\n`);
}
