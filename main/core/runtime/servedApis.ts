// The APIs a companion serves at once: every enabled profile (or, when the
// command names one with --profile or --spec, that one), each loaded with its
// own catalogue, search index, key and gate. APIs are enabled and disabled
// while the companion runs; a run already going keeps the gate it was given
// (what a disabled API opened is closed with the companion, never under a
// run). A session's scope names the APIs it may reach; `clientFor` gives a
// run the client for its scope once those APIs are loaded.
import { AirlockError } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Profile } from '../profiles/profile.ts';
import { apiIdentifier, identifierClash } from '../profiles/apiIdentifier.ts';
import type { Credentials } from '../secrets/credentials.ts';
import type { EgressGate } from '../egress/egressGate.ts';
import { runClient, type RunClient, type RunTools } from '../execute/runClient.ts';
import type { LoadedApi } from './loadApi.ts';
import type { PrepareProgress } from '../search/preparedApi.ts';

/** One API, opened: loaded, with its key and its gate. */
export interface OpenedApi {
  api: LoadedApi;
  credentials: Credentials;
  gate: EgressGate;
  close(): Promise<void>;
}

export type ApiLoadState = 'loading' | 'ready' | 'failed';

/** One served API as the screens and the tools see it. */
export interface ServedApi {
  readonly name: string;
  /** What `execute` reaches it by. */
  readonly id: string;
  readonly profile: Profile;
  readonly state: ApiLoadState;
  /** Why it could not be loaded. */
  readonly error?: string;
  /** How far loading is, while it loads. */
  readonly progress?: PrepareProgress;
  readonly opened?: OpenedApi;
  /** Resolves once loaded; rejects (an AirlockError) with why it could not be. */
  ready(): Promise<OpenedApi>;
}

/** What opening an API is given: whether it is the one the command named, where to say how far it is, how to be cancelled. */
export interface OpenOptions {
  primary: boolean;
  onProgress(progress: PrepareProgress): void;
  /** A part of its prepared store read later failed its check: it is served again (prepared afresh). */
  onDamaged(error: Error): void;
  signal: AbortSignal;
}

export interface ServedApisOptions {
  open(profile: Profile, options: OpenOptions): Promise<OpenedApi>;
  logger: Logger;
  /** Called after every change of the set or of an API's state. */
  onChange?(): void;
}

interface Entry {
  name: string;
  id: string;
  profile: Profile;
  state: ApiLoadState;
  error?: string;
  progress?: PrepareProgress;
  opened?: OpenedApi;
  loading: Promise<OpenedApi>;
  /** Cancels the load (when the API is disabled while it loads). */
  cancel: AbortController;
}

/** Progress is told to the screens at most this often. */
const PROGRESS_EVERY_MS = 250;

export class ServedApis {
  private readonly entries = new Map<string, Entry>();
  /** What disabled APIs opened: closed with the companion, so a run still using one is never cut off. */
  private readonly retired: OpenedApi[] = [];
  private readonly options: ServedApisOptions;
  /**
   * The API the command named (--profile, --spec), as the command named it: that very profile — not a later one of
   * the same name, which may send elsewhere — gets AIRLOCK_API_KEY, and stands for "the API" where one is meant.
   */
  private primaryProfile: Profile | undefined;
  private closed = false;
  private progressTimer: NodeJS.Timeout | undefined;

  constructor(options: ServedApisOptions) {
    this.options = options;
  }

  /** Starts serving these APIs; resolves when each has loaded or failed. */
  async start(profiles: Profile[], primary?: Profile): Promise<void> {
    this.primaryProfile = primary;
    for (const p of profiles) this.add(p);
    await Promise.allSettled([...this.entries.values()].map((e) => e.loading));
  }

  /** The served APIs, in name order. */
  list(): ServedApi[] {
    return [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name)).map((e) => this.view(e));
  }

  /** A served API by its profile name or its identifier. */
  get(nameOrId: string): ServedApi | undefined {
    const e = this.find(nameOrId);
    return e ? this.view(e) : undefined;
  }

  /** The served APIs a session's scope reaches, in name order (no scope: every one). A scope names an API by its name or identifier. */
  inScope(scope: readonly string[] | undefined): ServedApi[] {
    return this.list().filter((a) => !scope || scope.includes(a.name) || scope.includes(a.id));
  }

  /** The API meant where one is: the one the command named, else the first loaded; undefined when none is. */
  primaryOrNone(): OpenedApi | undefined {
    const named = this.primaryProfile ? this.entries.get(this.primaryProfile.name) : undefined;
    if (named?.opened && named.profile === this.primaryProfile) return named.opened;
    return this.list().find((e) => e.opened)?.opened;
  }

  /** As primaryOrNone, for what needs one: refused (unavailable) when no API is served. */
  primary(): OpenedApi {
    const found = this.primaryOrNone();
    if (found) return found;
    throw new AirlockError('unavailable', 'no API is served', { hint: 'enable one: `airlock apis enable demo`, or the APIs screen' });
  }

  /** Serves one more API (or serves it again with a changed profile); resolves when it is loaded or failed. */
  async enable(profile: Profile): Promise<ServedApi> {
    if (this.closed) throw new AirlockError('unavailable', 'the companion is closing');
    this.retire(profile.name);
    const entry = this.add(profile);
    await entry.loading.catch(() => undefined);
    return this.view(entry);
  }

  /** Stops serving an API: new calls to it are refused; runs going keep their client. False when it was not served. */
  disable(name: string): boolean {
    const had = this.retire(name);
    if (had) this.changed();
    return had;
  }

  /**
   * The client a run gets for a scope (absent: every served API that loaded). Waits for an API still loading;
   * a string says why there is none.
   */
  async clientFor(scope: readonly string[] | undefined, options: { defaultApi?: string; tools?: RunTools } = {}): Promise<RunClient | string> {
    const wanted = scope ? scope.map((n) => ({ name: n, entry: this.find(n) })) : [...this.entries.values()].map((e) => ({ name: e.name, entry: e }));
    const missing = wanted.filter((w) => !w.entry).map((w) => w.name);
    if (missing.length > 0)
      return `not served: ${missing.join(', ')}. The person running Airlock can enable it (\`airlock apis enable ${missing[0]}\`, or the APIs screen).`;
    const opened: OpenedApi[] = [];
    const failed: string[] = [];
    for (const w of wanted) {
      try {
        const api = await w.entry!.loading;
        // Disabled (or served again, changed) while it loaded: the run does not get what was disabled.
        if (this.entries.get(w.entry!.name) !== w.entry) {
          if (scope) return `not served: ${w.name}. The person running Airlock can enable it (\`airlock apis enable ${w.name}\`, or the APIs screen).`;
          continue;
        }
        opened.push(api);
      } catch (error) {
        failed.push(`${w.name}: ${(error as AirlockError).line ?? (error as Error).message}`);
      }
    }
    // A session that names its APIs needs each; one that takes every API gets those that loaded.
    const tools = options.tools?.servers.some((s) => s.tools.length > 0) ? options.tools : undefined;
    if ((opened.length === 0 && !(tools && failed.length === 0)) || (scope && failed.length > 0)) {
      return failed.length > 0
        ? `could not load ${failed.join('; ')}`
        : 'no API is served: the person running Airlock can enable one (`airlock apis enable demo`).';
    }
    return runClient(
      opened
        .sort((a, b) => a.api.profile.name.localeCompare(b.api.profile.name))
        .map((o) => ({
          id: o.api.id,
          shape: o.api.shape,
          gate: o.gate,
          clientNames: o.api.clientNames,
          ...(o.api.profile.alias ? { alias: o.api.profile.alias } : {}),
        })),
      { ...(options.defaultApi ? { defaultApi: options.defaultApi } : {}), ...(tools ? { tools } : {}) },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.progressTimer) clearTimeout(this.progressTimer);
    for (const e of [...this.entries.values()]) this.retire(e.name);
    const closing = this.retired.splice(0);
    await Promise.allSettled(closing.map((o) => o.close()));
  }

  private find(nameOrId: string): Entry | undefined {
    return this.entries.get(nameOrId) ?? [...this.entries.values()].find((x) => x.id === nameOrId);
  }

  private add(profile: Profile): Entry {
    const taken = new Map<string, string>();
    for (const e of this.entries.values()) {
      taken.set(e.id, e.name);
      if (e.profile.alias) taken.set(e.profile.alias, e.name);
    }
    const clash = identifierClash(profile.name, profile.alias, taken);
    const entry: Entry = {
      name: profile.name,
      id: apiIdentifier(profile.name),
      profile,
      state: 'loading',
      loading: Promise.resolve(undefined as never),
      cancel: new AbortController(),
    };
    entry.loading = clash
      ? Promise.reject(new AirlockError('config', clash))
      : this.options.open(profile, {
          primary: profile === this.primaryProfile,
          signal: entry.cancel.signal,
          onProgress: (progress) => {
            entry.progress = progress;
            this.progressed();
          },
          onDamaged: (error) => this.damaged(entry, error),
        });
    entry.loading.then(
      (opened) => {
        if (this.closed) {
          // Opened after the companion closed: closed at once.
          void opened.close().catch(() => undefined);
          return;
        }
        if (this.entries.get(entry.name) !== entry) {
          // Disabled while it loaded: what it opened is closed with the companion.
          this.retired.push(opened);
          return;
        }
        entry.opened = opened;
        entry.state = 'ready';
        delete entry.progress;
        this.changed();
      },
      (error: unknown) => {
        delete entry.progress;
        // Cancelled because it was disabled: nothing to say.
        if (entry.cancel.signal.aborted && this.entries.get(entry.name) !== entry) return;
        entry.state = 'failed';
        entry.error = (error as AirlockError).line ?? (error as Error).message;
        if (this.entries.get(entry.name) === entry) this.options.logger.error(`API ${entry.name} could not be loaded: ${entry.error}`);
        this.changed();
      },
    );
    this.entries.set(profile.name, entry);
    this.changed();
    return entry;
  }

  private retire(name: string): boolean {
    const e = this.entries.get(name);
    if (!e) return false;
    this.entries.delete(name);
    if (e.opened) this.retired.push(e.opened);
    // Still loading: stopped (its worker ends, nothing it wrote is used).
    else if (e.state === 'loading') e.cancel.abort(new AirlockError('unavailable', `API ${name} was disabled while it loaded`));
    return true;
  }

  /** A served API's store failed a check: it is served again, prepared afresh (runs going keep what they have). */
  private damaged(entry: Entry, error: Error): void {
    if (this.closed || this.entries.get(entry.name) !== entry) return;
    this.options.logger.warn(`API ${entry.name}: ${error.message}; preparing it again`);
    void this.enable(entry.profile).catch(() => undefined);
  }

  private changed(): void {
    if (this.progressTimer) {
      clearTimeout(this.progressTimer);
      this.progressTimer = undefined;
    }
    this.options.onChange?.();
  }

  /** Progress is told at most every PROGRESS_EVERY_MS. */
  private progressed(): void {
    this.progressTimer ??= setTimeout(() => {
      this.progressTimer = undefined;
      this.options.onChange?.();
    }, PROGRESS_EVERY_MS).unref();
  }

  private view(e: Entry): ServedApi {
    return {
      name: e.name,
      id: e.id,
      profile: e.profile,
      state: e.state,
      ...(e.error !== undefined ? { error: e.error } : {}),
      ...(e.progress ? { progress: e.progress } : {}),
      ...(e.opened ? { opened: e.opened } : {}),
      ready: () => e.loading,
    };
  }
}
