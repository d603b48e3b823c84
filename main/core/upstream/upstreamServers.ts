// The MCP servers the companion stands in front of, while it runs: each one
// started on first use (not before: a server nobody calls costs nothing), its
// tools listed once it is up and compared with what a person accepted
// (toolPins.ts), stopped with its process group when it is disabled, removed
// or changed, or when the companion stops. A server that crashes is started
// again after a delay that doubles, and a crash loop stops it with the reason
// until a person starts it again (restartPolicy.ts). One whose tools no
// person has accepted is started only when a person looks at it (`servers
// show`, the review): never by itself, at start or after it stops. Its state — configured,
// starting, connected (with its tool count), failed (with why and its last
// stderr lines), stopped — is what the CLI and the screens show.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log/logger.ts';
import { AirlockError } from '../util/errors.ts';
import { RestartPolicy, type RestartPolicyOptions } from './restartPolicy.ts';
import type { ServerEntry } from './serverEntry.ts';
import type { NamedServer } from './serverStore.ts';
import { reviewOf, toolsDigest, type PinStore, type PinnedTool, type Review } from './toolPins.ts';
import type { UpstreamConnection } from './upstreamClient.ts';
import { messageOf } from '../../../contract/values.ts';

export type ServerState = 'disabled' | 'configured' | 'starting' | 'connected' | 'failed' | 'stopped';

export interface ServerStatus {
  name: string;
  transport: ServerEntry['transport'];
  enabled: boolean;
  state: ServerState;
  /** Connected: how many tools it lists. */
  toolCount?: number;
  /** Failed or stopped: why. */
  reason?: string;
  /** The last lines it wrote to stderr. */
  stderr: string[];
  /** How its tools compare with what a person accepted; absent until they were listed once. */
  review?: Review['state'];
}

export interface UpstreamServersOptions {
  /** Every server entry, as configured now (read on each use: a change made while running is picked up). */
  entries(): NamedServer[];
  pins: Pick<PinStore, 'get' | 'accept'>;
  /**
   * Starts a server and connects to it (serverLauncher.ts); `onToolsChanged` when it says its tools changed;
   * `authorize` only for a person's sign-in (without it, a server that needs one fails with how to sign in).
   */
  launch(name: string, entry: ServerEntry, onToolsChanged: () => void, authorize?: (url: URL) => Promise<URLSearchParams>): Promise<UpstreamConnection>;
  logger: Logger;
  restart?: RestartPolicyOptions;
  /** A state changed (the screens refresh). */
  onChange?(): void;
  /** A server's tools changed while it ran (clients that see them hear `tools/list_changed`). */
  onToolsChanged?(name: string): void;
}

interface Live {
  connection: UpstreamConnection;
  tools: Tool[];
  /** The last review worked out, for these tools against that acceptance (both compared by identity). */
  reviewed?: { tools: Tool[]; accepted: PinnedTool[] | undefined; review: Review };
}

/** How a running server's tools compare with what was accepted, worked out again only when either changed. */
function reviewedOf(live: Live, accepted: PinnedTool[] | undefined): Review {
  if (live.reviewed?.tools !== live.tools || live.reviewed.accepted !== accepted)
    live.reviewed = { tools: live.tools, accepted, review: reviewOf(accepted, live.tools) };
  return live.reviewed.review;
}

interface Slot {
  /** How this slot was started (launchKey): a server started another way stops it. */
  entryJson: string;
  entry: ServerEntry;
  state: ServerState;
  reason?: string;
  live?: Promise<Live>;
  /** The settled connection, once it is up. */
  up?: Live;
  policy: RestartPolicy;
  restartTimer?: NodeJS.Timeout;
  /** When it starts again (Date.now() ms), while it waits to. */
  restartAt?: number;
  /** Ends the wait for a restart (the server was stopped meanwhile). */
  cancelRestart?: () => void;
  /** The listing of its tools going on after it said they changed, and whether another was asked for meanwhile. */
  relisting?: Promise<void>;
  relistAgain?: boolean;
  stderr: string[];
  /** Set when Airlock itself stops it: its exit is not a crash. */
  stopping?: boolean;
}

export class UpstreamServers {
  private readonly options: UpstreamServersOptions;
  private readonly slots = new Map<string, Slot>();
  private closed = false;

  constructor(options: UpstreamServersOptions) {
    this.options = options;
  }

  /** Every configured server and its state, in name order. */
  status(): ServerStatus[] {
    const entries = this.options.entries();
    this.forgetGone(entries);
    return entries.map(({ name, entry }) => {
      const slot = this.slots.get(name);
      const state: ServerState = !entry.enabled ? 'disabled' : slot && slot.entryJson === launchKey(entry) ? slot.state : 'configured';
      const up = slot?.state === 'connected' ? slot.up : undefined;
      const accepted = this.options.pins.get(name);
      return {
        name,
        transport: entry.transport,
        enabled: entry.enabled,
        state,
        ...(up ? { toolCount: up.tools.length, review: reviewedOf(up, accepted?.tools).state } : accepted ? {} : { review: 'unreviewed' as const }),
        ...(slot?.reason && (state === 'failed' || state === 'stopped') ? { reason: slot.reason } : {}),
        stderr: slot ? (slot.up?.connection.stderrTail() ?? slot.stderr) : [],
      };
    });
  }

  /** Starts, in the background, every enabled server whose entry says to start with the companion; a failure is its state. */
  startAutostart(): void {
    for (const { name, entry } of this.options.entries()) {
      if (!entry.enabled || !entry.autostart) continue;
      // Not one whose tools no person has accepted: it starts when a person looks at it.
      if (!this.options.pins.get(name))
        this.options.logger.info(`MCP server ${name} starts with Airlock once its tools are accepted (airlock servers show ${name})`);
      else this.connect(name).catch(() => undefined);
    }
  }

  /** Stops the running servers `refused` names a reason for (the organisation's policy changed); returns them with why. */
  stopRefused(refused: (name: string, entry: ServerEntry) => string | undefined): string[] {
    const stopped: string[] = [];
    for (const [name, slot] of [...this.slots]) {
      const why = refused(name, slot.entry);
      if (!why) continue;
      void this.stop(name, slot);
      stopped.push(why);
    }
    if (stopped.length > 0) this.options.onChange?.();
    return stopped;
  }

  /** Stops at once what was disabled, removed or changed since it started (a change made through the store). */
  sync(): void {
    this.forgetGone(this.options.entries());
  }

  entry(name: string): ServerEntry | undefined {
    return this.options.entries().find((s) => s.name === name)?.entry;
  }

  /**
   * The tools a script may reach, by server: those a person accepted, of every enabled server (read from the
   * review, so no server is started to say what it has). A server whose tools changed since is refused at the call.
   */
  acceptedTools(): { name: string; tools: string[] }[] {
    return this.options.entries().flatMap(({ name, entry }) => {
      const accepted = entry.enabled ? this.options.pins.get(name) : undefined;
      return accepted ? [{ name, tools: accepted.tools.map((t) => t.name) }] : [];
    });
  }

  /** A server's tools and how they compare with what was accepted, starting it first when it is not running. */
  async tools(name: string): Promise<{ tools: Tool[]; review: Review }> {
    const live = await this.connect(name);
    return { tools: live.tools, review: reviewedOf(live, this.options.pins.get(name)?.tools) };
  }

  /** Calls one tool of a running (or started now) server. The caller has checked the review and the policy. */
  async call(name: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const live = await this.connect(name);
    return live.connection.call(tool, args, signal ? { signal } : {});
  }

  /** The accepted tools of every enabled server a person offers directly to clients, with their accepted definitions. */
  directTools(): { server: string; tool: PinnedTool }[] {
    return this.options.entries().flatMap(({ name, entry }) => {
      const accepted = entry.enabled && entry.direct ? this.options.pins.get(name) : undefined;
      return accepted ? accepted.tools.map((tool) => ({ server: name, tool })) : [];
    });
  }

  /** The tool definitions a person accepted for a server, if any. */
  accepted(name: string): PinnedTool[] | undefined {
    return this.options.pins.get(name)?.tools;
  }

  /** A person accepts the server's tools as they are now — when `digest` is given, only if they are still what was shown. */
  async accept(name: string, digest?: string): Promise<Review> {
    const live = await this.connect(name);
    if (digest !== undefined && toolsDigest(live.tools) !== digest) {
      throw new AirlockError('conflict', `MCP server ${name}'s tools changed since they were shown: nothing was accepted`, { hint: 'review them again' });
    }
    await this.options.pins.accept(name, live.tools);
    this.options.onChange?.();
    return reviewOf(this.options.pins.get(name)?.tools, live.tools);
  }

  /** A person signs in to a remote server (its tokens go to the key store), then it is started again, signed in. */
  async login(name: string, authorize: (url: URL) => Promise<URLSearchParams>): Promise<void> {
    const connection = await this.options.launch(name, this.entryOf(name), () => undefined, authorize);
    try {
      await connection.tools();
    } finally {
      await connection.close();
    }
    await this.restart(name).catch(() => undefined);
  }

  /** A person starts a server again (after a crash loop, or to pick up new tools): stopped, its crash count reset. */
  async restart(name: string): Promise<void> {
    const slot = this.slots.get(name);
    if (slot) {
      slot.policy.reset();
      await this.stop(name, slot);
    }
    await this.connect(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.slots].map(([name, slot]) => this.stop(name, slot)));
  }

  private entryOf(name: string): ServerEntry {
    const found = this.options.entries().find((s) => s.name === name);
    if (!found) throw new AirlockError('not_found', `no MCP server named '${name}'`, { hint: 'airlock servers list' });
    if (!found.entry.enabled) {
      throw new AirlockError('config', `MCP server ${name} is disabled`, { hint: `the person running Airlock can enable it: airlock servers enable ${name}` });
    }
    return found.entry;
  }

  private connect(name: string): Promise<Live> {
    if (this.closed) return Promise.reject(new AirlockError('unavailable', 'Airlock is stopping'));
    const entry = this.entryOf(name);
    const json = launchKey(entry);
    let slot = this.slots.get(name);
    if (slot && slot.entryJson !== json) {
      // Changed while it ran: the old one stops, the new one starts.
      void this.stop(name, slot);
      slot = undefined;
    }
    if (!slot) {
      slot = { entryJson: json, entry, state: 'configured', policy: new RestartPolicy(this.options.restart), stderr: [] };
      this.slots.set(name, slot);
    }
    if (slot.state === 'stopped')
      return Promise.reject(new AirlockError('unavailable', `MCP server ${name} ${slot.reason}`, { hint: `airlock servers restart ${name}` }));
    // Waiting to start again after it stopped: said at once, with when (a call would otherwise wait out its own deadline).
    if (slot.restartAt !== undefined) {
      const seconds = Math.max(1, Math.ceil((slot.restartAt - Date.now()) / 1000));
      return Promise.reject(
        new AirlockError('unavailable', `MCP server ${name} is restarting (${slot.reason ?? 'it stopped'}): retry in ${seconds} s`, {
          hint: `or start it now: airlock servers restart ${name}`,
        }),
      );
    }
    slot.live ??= this.start(name, slot);
    return slot.live;
  }

  private start(name: string, slot: Slot): Promise<Live> {
    const log = this.options.logger;
    slot.state = 'starting';
    slot.stopping = false;
    delete slot.reason;
    this.options.onChange?.();
    const live = (async () => {
      const connection = await this.options.launch(name, slot.entry, () => void this.relist(name, slot));
      try {
        const tools = await connection.tools();
        return { connection, tools };
      } catch (error) {
        await connection.close();
        throw error;
      }
    })();
    live.then(
      (up) => {
        if (this.slots.get(name) !== slot || slot.stopping) return;
        slot.up = up;
        slot.state = 'connected';
        log.info(`MCP server ${name}: connected, ${up.tools.length} tool${up.tools.length === 1 ? '' : 's'}`);
        this.options.onChange?.();
        void up.connection.exited.then((exit) => {
          // Stopped by Airlock, or already given up on (a crash closes what is left of it): not a crash of its own.
          if (slot.stopping || this.slots.get(name) !== slot || slot.up !== up) return;
          slot.stderr = up.connection.stderrTail();
          const last = slot.stderr.filter((l) => l.trim()).at(-1);
          this.crashed(name, slot, `exited (${exit.signal ?? `code ${exit.code}`})${last ? `: ${last}` : ''}`);
        });
      },
      (error: Error) => {
        if (this.slots.get(name) !== slot || slot.stopping) return;
        this.crashed(name, slot, (error as AirlockError).line ?? error.message);
      },
    );
    return live;
  }

  /**
   * The server says its tools changed: they are listed again and compared with what was accepted — a change is
   * held for review at the next call — and the screens and clients hear of it.
   */
  private relist(name: string, slot: Slot): Promise<void> {
    // One listing at a time: a notification during one asks for one more after it, never a race of lists.
    if (slot.relisting) {
      slot.relistAgain = true;
      return slot.relisting;
    }
    slot.relisting = (async () => {
      do {
        slot.relistAgain = false;
        const up = slot.up;
        if (!up || this.slots.get(name) !== slot) return;
        try {
          up.tools = await up.connection.tools();
        } catch (error) {
          // Its tools are unknown now: it is not left running on the list it had (started again, and listed, later).
          this.crashed(name, slot, `its tools changed, and listing them again failed: ${messageOf(error)}`, up.connection);
          return;
        }
        const review = reviewOf(this.options.pins.get(name)?.tools, up.tools);
        this.options.logger.info(
          `MCP server ${name}: its tools changed (${up.tools.length} now${review.state === 'changed' ? '; held until a person accepts them again' : ''})`,
        );
        this.options.onChange?.();
        this.options.onToolsChanged?.(name);
      } while (slot.relistAgain);
    })().finally(() => {
      delete slot.relisting;
    });
    return slot.relisting;
  }

  /** It stopped without being asked to, or could not start: started again after the policy's delay, or stopped for good. */
  private crashed(name: string, slot: Slot, why: string, connection?: UpstreamConnection): void {
    const log = this.options.logger;
    // What is left of it (an HTTP session, a process that lingers) is closed: nothing leaks across restarts.
    void (connection ?? slot.up?.connection)?.close().catch(() => undefined);
    delete slot.live;
    delete slot.up;
    // A server whose tools no person has accepted runs only while a person looks at it (servers show): never again by itself.
    if (!this.options.pins.get(name)) {
      slot.state = 'failed';
      slot.reason = why;
      log.warn(`MCP server ${name} ${why}; its tools were never accepted, so it is not started again by itself (airlock servers show ${name})`);
      this.options.onChange?.();
      return;
    }
    const decision = slot.policy.crashed(why);
    if (!decision.restart) {
      slot.state = 'stopped';
      slot.reason = decision.reason;
      log.error(`MCP server ${name} ${decision.reason}`);
    } else {
      slot.state = 'failed';
      slot.reason = why;
      log.warn(`MCP server ${name} ${why}; starting it again in ${Math.round(decision.afterMs / 1000)} s`);
      // Started again after the delay; a call meanwhile waits for that start (the backoff holds for calls too).
      const delayed = new Promise<void>((resolve, reject) => {
        slot.cancelRestart = () => reject(new AirlockError('unavailable', `MCP server ${name} was stopped before it started again`));
        slot.restartTimer = setTimeout(resolve, decision.afterMs);
        slot.restartTimer.unref();
        slot.restartAt = Date.now() + decision.afterMs;
      });
      slot.live = delayed.then(() => {
        delete slot.restartTimer;
        delete slot.cancelRestart;
        delete slot.restartAt;
        // Disabled, removed or changed while it waited: it is not started again.
        const now = this.options.entries().find((e) => e.name === name);
        if (!now || !now.entry.enabled || launchKey(now.entry) !== slot.entryJson) {
          log.info(`MCP server ${name} was disabled or changed while it waited to start again: not started`);
          void this.stop(name, slot);
          throw new AirlockError('unavailable', `MCP server ${name} is disabled or changed`);
        }
        return this.start(name, slot);
      });
      // A failed restart is handled (and logged) by start itself.
      slot.live.catch(() => undefined);
    }
    this.options.onChange?.();
  }

  private async stop(name: string, slot: Slot): Promise<void> {
    slot.stopping = true;
    if (slot.restartTimer) clearTimeout(slot.restartTimer);
    delete slot.restartAt;
    slot.cancelRestart?.();
    const live = slot.live;
    delete slot.live;
    delete slot.up;
    if (this.slots.get(name) === slot) this.slots.delete(name);
    if (!live) return;
    try {
      const { connection } = await live;
      await connection.close();
    } catch {
      // It never started: nothing to stop.
    }
  }

  /** Servers removed or disabled since they started are stopped. */
  private forgetGone(entries: readonly NamedServer[]): void {
    for (const [name, slot] of this.slots) {
      const now = entries.find((e) => e.name === name);
      if (!now || !now.entry.enabled || launchKey(now.entry) !== slot.entryJson) void this.stop(name, slot);
    }
  }
}

/** What of an entry decides how the server is started: a change to its policies, or to whether it is offered directly, keeps it running. */
function launchKey(entry: ServerEntry): string {
  const { enabled: _enabled, defaultPolicy: _default, toolPolicies: _tools, direct: _direct, autostart: _autostart, ...launch } = entry;
  return JSON.stringify(launch);
}
