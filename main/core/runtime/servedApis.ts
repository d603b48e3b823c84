// The APIs a companion serves at once: every enabled profile (or, when the
// command names one with --profile or --spec, that one), each loaded with its
// own catalogue, search index, key and gate. APIs are enabled and disabled
// while the companion runs; a run already going keeps the gate it was given
// (what a disabled API opened is closed with the companion, never under a
// run). A session's scope names the APIs it may reach; `clientFor` gives a
// run the client for its scope once those APIs are loaded.
import { AirlockError, errorMessage } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Profile } from '../profiles/profile.ts';
import { apiIdentifier, clientNamesOf, identifierClash } from '../profiles/apiIdentifier.ts';
import type { Credentials } from '../secrets/credentials.ts';
import type { EgressGate } from '../egress/egressGate.ts';
import { runClient, type RunClient, type RunTools, type UnavailableApi } from '../execute/runClient.ts';
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
  /** Loading, and its document is being prepared (apart, in a child process): what needs it does not wait for it. */
  readonly preparing: boolean;
  readonly opened?: OpenedApi;
  /** Resolves once loaded; rejects (an AirlockError) with why it could not be. */
  ready(): Promise<OpenedApi>;
  /** Resolves once it is loaded or failed, or as soon as its document is being prepared: never waits on a preparation. */
  settled(): Promise<void>;
}

/** The phases of a preparation that run apart (in the preparing process): all but opening what it prepared. */
const PREPARING = new Set<PrepareProgress['phase']>(['reading', 'parsing', 'resolving', 'cataloguing', 'indexing', 'writing']);

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
  /** Called as an API loading goes on (at most every PROGRESS_EVERY_MS per API): not a change of what is served. */
  onProgress?(name: string, progress: PrepareProgress): void;
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
  /** Resolved once loaded or failed, or when its document starts being prepared. */
  settled: PromiseWithResolvers<void>;
  /** Cancels the load (when the API is disabled while it loads). */
  cancel: AbortController;
  /** When progress was last told, and whether more is waiting to be. */
  toldAt: number;
  progressTimer?: NodeJS.Timeout;
}

/** Progress is told to the screens at most this often. */
const PROGRESS_EVERY_MS = 250;
/** How long a call waits for a document being prepared when nothing in its reach is open yet. */
const FIRST_OPEN_WAIT_MS = 20_000;

export class ServedApis {
  private readonly entries = new Map<string, Entry>();
  /** What disabled APIs opened: closed with the companion, so a run still using one is never cut off. */
  private readonly retired: OpenedApi[] = [];
  private readonly options: ServedApisOptions;
  /**
   * The API the command named (--profile, --spec), as the command named it: that very profile — not a later one of
   * the same name, which may send elsewhere — gets AIRLOCK_API_KEY (every API reads its own AIRLOCK_KEY_<API>), and stands for "the API" where one is meant.
   */
  private primaryProfile: Profile | undefined;
  private closed = false;

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
   * Waits until what a scope reaches can be used: each API loaded or failed, or its document being prepared (a
   * run does not wait for a big document while others serve). When nothing in reach is open yet — a first call
   * right after the companion starts, or after the only API was added — it waits for those being prepared too, up
   * to `waitMs`: that call gets the API rather than "still loading".
   */
  async usable(scope: readonly string[] | undefined, waitMs: number = FIRST_OPEN_WAIT_MS): Promise<void> {
    const inReach = [...this.entries.values()].filter((e) => !scope || scope.includes(e.name) || scope.includes(e.id));
    await Promise.all(inReach.map((e) => e.settled.promise));
    if (inReach.length === 0 || inReach.some((e) => e.opened) || !inReach.some((e) => e.state === 'loading')) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(inReach.map((e) => e.loading)), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs).unref()))]);
    clearTimeout(timer);
  }

  /**
   * The client a run gets for a scope (absent: every served API). Waits for an API being opened, never for one
   * whose document is being prepared: that one is in the client as a name whose every call answers that it is
   * still loading, and one that failed to load answers why and what to do; only a run that calls it is told. A
   * string says why there is no client at all.
   */
  async clientFor(scope: readonly string[] | undefined, options: { defaultApi?: string; tools?: RunTools } = {}): Promise<RunClient | string> {
    const wanted = scope ? scope.map((n) => ({ name: n, entry: this.find(n) })) : [...this.entries.values()].map((e) => ({ name: e.name, entry: e }));
    const missing = wanted.filter((w) => !w.entry).map((w) => w.name);
    if (missing.length > 0)
      return `not served: ${missing.join(', ')}. The person running Airlock can enable it (\`airlock apis enable ${missing[0]}\`, or the APIs screen).`;
    await this.usable(scope);
    const opened: OpenedApi[] = [];
    const unavailable: UnavailableApi[] = [];
    for (const w of wanted) {
      const entry = w.entry!;
      await entry.settled.promise;
      // Disabled (or served again, changed) while it loaded: the run does not get what was disabled.
      if (this.entries.get(entry.name) !== entry) {
        if (scope) return `not served: ${w.name}. The person running Airlock can enable it (\`airlock apis enable ${w.name}\`, or the APIs screen).`;
        continue;
      }
      if (entry.opened) {
        opened.push(entry.opened);
        continue;
      }
      const names = { id: entry.id, ...(entry.profile.alias ? { alias: entry.profile.alias } : {}), clientNames: clientNamesOf(entry.profile) };
      unavailable.push(
        entry.state === 'loading'
          ? {
              ...names,
              code: 'airlock_api_loading',
              message: `API ${entry.name} is still loading (${entry.progress ? `${entry.progress.phase}, ${Math.round(entry.progress.percent)}%` : 'its document is being prepared'}): call it again once it is served`,
            }
          : {
              ...names,
              code: 'airlock_api_failed',
              message: `could not load ${entry.name}: ${entry.error ?? 'no reason given'}; the person running Airlock can see why on the APIs screen (or \`airlock apis show ${entry.name}\`), fix it and serve it again (\`airlock apis enable ${entry.name}\`)`,
            },
      );
    }
    const tools = options.tools?.servers.some((s) => s.tools.length > 0) || options.tools?.awaiting?.length ? options.tools : undefined;
    if (opened.length + unavailable.length === 0 && !tools) return 'no API is served: the person running Airlock can enable one (`airlock apis enable demo`).';
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
      { ...(options.defaultApi ? { defaultApi: options.defaultApi } : {}), ...(tools ? { tools } : {}), ...(unavailable.length ? { unavailable } : {}) },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const e of this.entries.values()) clearTimeout(e.progressTimer);
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
      settled: Promise.withResolvers<void>(),
      cancel: new AbortController(),
      toldAt: 0,
    };
    entry.loading = clash
      ? Promise.reject(new AirlockError('config', clash))
      : this.options.open(profile, {
          primary: profile === this.primaryProfile,
          signal: entry.cancel.signal,
          onProgress: (progress) => {
            entry.progress = progress;
            if (PREPARING.has(progress.phase)) entry.settled.resolve();
            this.progressed(entry);
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
        clearTimeout(entry.progressTimer);
        entry.settled.resolve();
        this.changed();
      },
      (error: unknown) => {
        delete entry.progress;
        clearTimeout(entry.progressTimer);
        entry.settled.resolve();
        // Cancelled because it was disabled: nothing to say.
        if (entry.cancel.signal.aborted && this.entries.get(entry.name) !== entry) return;
        entry.state = 'failed';
        entry.error = errorMessage(error);
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
    // Still loading: stopped (its preparing process ends, nothing it wrote is used); a run waiting for it goes on without it.
    else if (e.state === 'loading') e.cancel.abort(new AirlockError('unavailable', `API ${name} was disabled while it loaded`));
    clearTimeout(e.progressTimer);
    e.settled.resolve();
    return true;
  }

  /** A served API's store failed a check: it is served again, prepared afresh (runs going keep what they have). */
  private damaged(entry: Entry, error: Error): void {
    if (this.closed || this.entries.get(entry.name) !== entry) return;
    this.options.logger.warn(`API ${entry.name}: ${error.message}; preparing it again`);
    void this.enable(entry.profile).catch(() => undefined);
  }

  private changed(): void {
    this.options.onChange?.();
  }

  /** An API's progress is told at once, then at most every PROGRESS_EVERY_MS (the latest). */
  private progressed(entry: Entry): void {
    if (entry.progressTimer) return;
    const tell = () => {
      entry.progressTimer = undefined;
      entry.toldAt = performance.now();
      if (entry.progress && this.entries.get(entry.name) === entry) this.options.onProgress?.(entry.name, entry.progress);
    };
    const wait = entry.toldAt + PROGRESS_EVERY_MS - performance.now();
    if (wait <= 0) tell();
    else entry.progressTimer = setTimeout(tell, wait).unref();
  }

  private view(e: Entry): ServedApi {
    return {
      name: e.name,
      id: e.id,
      profile: e.profile,
      state: e.state,
      ...(e.error !== undefined ? { error: e.error } : {}),
      ...(e.progress ? { progress: e.progress } : {}),
      preparing: e.state === 'loading' && e.progress !== undefined && PREPARING.has(e.progress.phase),
      ...(e.opened ? { opened: e.opened } : {}),
      ready: () => e.loading,
      settled: () => e.settled.promise,
    };
  }
}
