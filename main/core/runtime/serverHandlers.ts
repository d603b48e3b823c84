// The Servers screen's and `airlock servers`' methods while a companion runs
// (issue 20): other MCP servers with their state, a review of one's tools
// (starting it if needed) with what changed since a person accepted them,
// accepting exactly what was shown, turning one on or off, starting it again,
// and the person's policies. Changes are saved in servers.json and
// server-reviews.json, and the running servers read them at the next call.
import type { ControlHandlers } from '../control/dispatch.ts';
import { policyOf, refusedByOrganisation, serverRefusal } from '../config/managedPolicy.ts';
import { AirlockError, errorMessage } from '../util/errors.ts';
import { secretAccount, secretNames, serverTarget, type ServerEntry } from '../upstream/serverEntry.ts';
import { serverReview } from '../upstream/serverReview.ts';
import { OAUTH_CALLBACK_PORT, cachedLoginPath } from '../upstream/serverLauncher.ts';
import { missingCommandWarning } from '../upstream/commandLookup.ts';
import { OAUTH_SECRET } from '../upstream/oauthProvider.ts';
import { browserAuthorize } from '../upstream/oauthBrowserFlow.ts';
import { serverProfile } from '../../../contract/calls.ts';
import { addFromJson, removeServer } from '../upstream/serverAdmin.ts';
import { carryOut, importCandidate, keyStoreProblem, planImport, unusableKeyStore } from '../upstream/serverImport.ts';
import type { ServerReview, ServerView } from '../../../contract/servers.ts';
import type { Services } from './services.ts';

export type ServerHandlerServices = Pick<Services, 'info' | 'upstream' | 'serverEntries' | 'serverReviews' | 'keys' | 'logs' | 'hub' | 'broker'> & {
  settings?: Pick<Services['settings'], 'managed'>;
};

type ServerMethods = Extract<keyof ControlHandlers, `servers.${string}`>;

export function createServerHandlers(c: ServerHandlerServices): Pick<ControlHandlers, ServerMethods> {
  const store = c.serverEntries;
  const pins = c.serverReviews;
  const registrarOf = async () => (await import('../clients/machineRegistrar.ts')).machineRegistrar(c.info.paths.root);
  /** Why the key store cannot be used, when it cannot: servers with inline values then cannot move. */
  const keyStoreUnusable = () => unusableKeyStore(c.keys.credentials.secretStore);
  const log = c.logs.logger;
  const redact = (line: string) => c.logs.redact(line);

  const entryOf = (name: string): ServerEntry => {
    const entry = store.get(name);
    if (!entry) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
    return entry;
  };

  const views = async (): Promise<ServerView[]> => {
    // A key store that cannot be read leaves each secret's state unknown: never "missing" when it may be set.
    let held: Set<string> | undefined;
    let unknown: string | undefined;
    try {
      held = new Set(await c.keys.store.list());
    } catch (error) {
      unknown = redact(errorMessage(error));
    }
    const entries = new Map(store.list().map((s) => [s.name, s.entry]));
    const path = (await cachedLoginPath()) ?? process.env.PATH;
    return c.upstream.status().map((s) => {
      const entry = entries.get(s.name)!;
      const missing = entry.transport === 'stdio' && s.state !== 'connected' ? missingCommandWarning(entry.command, path) : undefined;
      return {
        name: s.name,
        transport: s.transport,
        target: serverTarget(entry),
        enabled: s.enabled,
        state: s.state,
        ...(s.toolCount !== undefined ? { toolCount: s.toolCount } : {}),
        ...(s.reason ? { reason: redact(s.reason) } : {}),
        ...(missing ? { commandMissing: missing } : {}),
        stderr: s.stderr.map(redact),
        ...(s.review ? { review: s.review } : {}),
        ...(entry.defaultPolicy ? { defaultPolicy: entry.defaultPolicy } : {}),
        ...(entry.direct ? { direct: true } : {}),
        ...(entry.transport === 'http' && !entry.clientCredentials && !entry.crossApp && held
          ? { signIn: held.has(secretAccount(s.name, OAUTH_SECRET)) ? ('signed-in' as const) : ('not-signed-in' as const) }
          : {}),
        secrets: secretNames(entry).map((n) => ({ name: n, ...(held ? { set: held.has(secretAccount(s.name, n)) } : {}) })),
        ...(unknown && secretNames(entry).length > 0 ? { secretsUnknown: unknown } : {}),
      };
    });
  };
  const viewOf = async (name: string): Promise<ServerView> => (await views()).find((v) => v.name === name)!;

  const review = async (name: string): Promise<ServerReview> => {
    const entry = entryOf(name);
    const { tools } = await c.upstream.tools(name);
    return serverReview(name, entry, tools, c.upstream.accepted(name), redact);
  };
  const changed = () => c.hub.publish({ type: 'servers-changed' });

  return {
    'servers.list': () => views(),
    'servers.review': ({ name }) => review(name),
    'servers.accept': async ({ name, digest }, caller) => {
      entryOf(name);
      const was = (await c.upstream.tools(name)).review.state;
      await c.upstream.accept(name, digest);
      // Tools that changed are new tools: a grant given for what they were does not carry over.
      if (was === 'changed') c.broker.grants.revokeProfile(serverProfile(name), `${caller.by} (its tools changed)`);
      log.info(`MCP server ${name}: its tools were accepted by ${caller.by}`);
      changed();
      return review(name);
    },
    'servers.setEnabled': async ({ name, enabled }, caller) => {
      entryOf(name);
      await store.setEnabled(name, enabled);
      c.upstream.sync(); // off: its process stops now
      log.info(`MCP server ${name} ${enabled ? 'enabled' : 'disabled'} by ${caller.by}`);
      changed();
      return viewOf(name);
    },
    'servers.setDirect': async ({ name, direct }, caller) => {
      entryOf(name);
      await store.setDirect(name, direct);
      log.info(`MCP server ${name}: ${direct ? 'its accepted tools offered to clients directly' : 'no longer offered directly'}, by ${caller.by}`);
      changed();
      return viewOf(name);
    },
    'servers.add': async ({ name, entry, json }, caller) => {
      if ((entry === undefined) === (json === undefined))
        throw new AirlockError('usage', 'give the server as an entry (the form) or as pasted JSON, one of the two');
      // The organisation's policy first: a server it refuses is not added (pasted JSON is read, then checked).
      const policy = policyOf(c.settings?.managed);
      if (entry !== undefined) {
        const refused = serverRefusal(policy, { name, entry: entry as ServerEntry });
        if (refused) throw refusedByOrganisation(`${refused}; nothing was added`);
        await store.add(name, entry as ServerEntry);
      } else {
        await addFromJson(name, json!, { store, keys: c.keys.store });
        const added = store.get(name);
        const refused = added ? serverRefusal(policy, { name, entry: added }) : undefined;
        if (refused) {
          await removeServer(name, { store, pins, keys: c.keys.store, grants: c.broker.grants, by: caller.by });
          throw refusedByOrganisation(`${refused}; nothing was added`);
        }
      }
      log.info(`MCP server ${name} added by ${caller.by}; its tools wait for review`);
      // One that starts with Airlock starts now: Airlock is running.
      c.upstream.startAutostart();
      changed();
      return viewOf(name);
    },
    'servers.remove': async ({ name }, caller) => {
      const { removed, leftBehind } = await removeServer(name, { store, pins, keys: c.keys.store, grants: c.broker.grants, by: caller.by });
      if (removed) {
        log.info(`MCP server ${name} removed by ${caller.by}`);
        if (leftBehind.length > 0) log.warn(`MCP server ${name}: the key store cannot be reached, so ${leftBehind.join(', ')} stay in it`);
        c.upstream.sync(); // stops its process now
        changed();
      }
      return { removed, ...(leftBehind.length > 0 ? { leftBehind } : {}) };
    },
    'servers.importable': async () => {
      const registrar = await registrarOf();
      const unusable = keyStoreUnusable();
      const { CLIENTS } = await import('../clients/clientCatalog.ts');
      const out = [];
      for (const d of CLIENTS) {
        let found: Awaited<ReturnType<typeof registrar.servers>>;
        try {
          found = await registrar.servers(d.id);
        } catch (error) {
          // A file that cannot be read is said, never shown as a client with no server.
          out.push({ client: d.id, label: d.label, error: errorMessage(error), servers: [] });
          continue;
        }
        const { label, file, entries } = found;
        if (Object.keys(entries).length === 0) continue;
        out.push({
          client: d.id,
          label,
          ...(file ? { file } : {}),
          servers: Object.entries(entries).map(([from, raw]) => {
            const cand = importCandidate(from, raw);
            cand.problem ??= keyStoreProblem(Object.keys(cand.secrets), unusable);
            return {
              from,
              name: cand.name,
              ...(cand.entry ? { target: serverTarget(cand.entry) } : {}),
              secrets: Object.keys(cand.secrets),
              ...(cand.problem ? { problem: cand.problem } : {}),
              notes: cand.notes,
            };
          }),
        });
      }
      return out;
    },
    'servers.import': async ({ client, servers, all, dryRun, digest }, caller) => {
      const registrar = await registrarOf();
      const plan = await planImport(
        registrar,
        new Set(store.list().map((x) => x.name)),
        client,
        { ...(all ? { all } : {}), ...(servers ? { servers } : {}) },
        keyStoreUnusable(),
      );
      const base = {
        moved: plan.moving.map((x) => x.name),
        refused: plan.refused.map((x) => ({ from: x.from, problem: x.problem! })),
        diff: plan.diff,
        digest: plan.digest,
      };
      if (!dryRun && digest !== undefined && digest !== plan.digest) {
        throw new AirlockError('conflict', `${plan.label}'s servers or file changed since the preview: nothing was moved`, { hint: 'preview again' });
      }
      if (dryRun || plan.moving.length === 0) return { ...base, dryRun: dryRun === true };
      const done = await carryOut(plan, registrar, store, c.keys.store);
      log.info(`MCP servers ${base.moved.join(', ')} moved behind Airlock from ${plan.label} by ${caller.by}`);
      changed();
      return { ...base, dryRun: false, ...(done.backup ? { backup: done.backup } : {}), afterwards: done.afterwards };
    },
    'servers.login': async ({ name }, caller) => {
      const entry = entryOf(name);
      if (entry.transport !== 'http' || entry.clientCredentials || entry.crossApp) {
        throw new AirlockError(
          'usage',
          `${name} is not signed in to by a person: only a remote server behind OAuth is (a command, a client that signs in by itself, or one signed in through your identity provider, is not)`,
        );
      }
      log.info(`MCP server ${name}: sign-in started by ${caller.by}; the browser opens on this machine`);
      await c.upstream.login(name, browserAuthorize({ port: OAUTH_CALLBACK_PORT, tell: (line) => log.info(line) }));
      log.info(`MCP server ${name}: signed in`);
      changed();
      return viewOf(name);
    },
    'servers.restart': async ({ name }, caller) => {
      entryOf(name);
      log.info(`MCP server ${name} started again by ${caller.by}`);
      await c.upstream.restart(name).catch(() => undefined);
      return viewOf(name);
    },
    'servers.setPolicy': async ({ name, tool, policy }, caller) => {
      entryOf(name);
      await store.setPolicy(name, tool, policy ?? undefined);
      log.info(`MCP server ${name}: ${tool ? `tool ${tool}` : 'default'} policy ${policy ?? 'cleared'} by ${caller.by}`);
      changed();
      return review(name);
    },
  };
}
