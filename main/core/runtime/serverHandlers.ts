// The Servers screen's and `airlock servers`' methods while a companion runs
// (issue 20): other MCP servers with their state, a review of one's tools
// (starting it if needed) with what changed since a person accepted them,
// accepting exactly what was shown, turning one on or off, starting it again,
// and the person's policies. Changes are saved in servers.json and
// server-reviews.json, and the running servers read them at the next call.
import type { ControlHandlers } from '../control/dispatch.ts';
import { AirlockError } from '../util/errors.ts';
import { ServerStore } from '../upstream/serverStore.ts';
import { secretAccount, secretNames, serverTarget, type ServerEntry } from '../upstream/serverEntry.ts';
import { serverReview } from '../upstream/serverReview.ts';
import type { ServerReview, ServerView } from '../../../contract/servers.ts';
import type { Services } from './services.ts';

export type ServerHandlerServices = Pick<Services, 'info' | 'upstream' | 'keys' | 'logs' | 'hub'>;

type ServerMethods =
  'servers.list' | 'servers.review' | 'servers.accept' | 'servers.setEnabled' | 'servers.setDirect' | 'servers.restart' | 'servers.setPolicy';

export function createServerHandlers(c: ServerHandlerServices): Pick<ControlHandlers, ServerMethods> {
  const store = new ServerStore(c.info.paths.servers);
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
      unknown = redact((error as AirlockError).line ?? (error as Error).message);
    }
    const entries = new Map(store.list().map((s) => [s.name, s.entry]));
    return c.upstream.status().map((s) => {
      const entry = entries.get(s.name)!;
      return {
        name: s.name,
        transport: s.transport,
        target: serverTarget(entry),
        enabled: s.enabled,
        state: s.state,
        ...(s.toolCount !== undefined ? { toolCount: s.toolCount } : {}),
        ...(s.reason ? { reason: redact(s.reason) } : {}),
        stderr: s.stderr.map(redact),
        ...(s.review ? { review: s.review } : {}),
        ...(entry.defaultPolicy ? { defaultPolicy: entry.defaultPolicy } : {}),
        ...(entry.direct ? { direct: true } : {}),
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
      await c.upstream.accept(name, digest);
      log.info(`MCP server ${name}: its tools were accepted by ${caller.by}`);
      changed();
      return review(name);
    },
    'servers.setEnabled': async ({ name, enabled }, caller) => {
      entryOf(name);
      await store.setEnabled(name, enabled);
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
