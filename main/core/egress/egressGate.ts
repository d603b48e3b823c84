// The egress gate: the one module every API call from sandboxed code goes
// through, whatever the engine. It maps the call to a catalogue operation,
// classifies the concrete request (method overrides included), applies the
// policy (asking a person under `ask`, with every header the call will send
// shown and the approval bound to a hash of method, URL and body), rate-limits
// per caller, builds the request for the profile's origin only, checks and
// pins the address, adds the credential (the sandbox never holds it),
// follows a same-origin redirect only when a read leads to a read (any other
// redirect comes back to the script unfollowed, with its status and Location:
// an approval never carries over to a request nobody saw), never follows
// another origin, scrubs the credential from everything it hands back, and
// records every request. It never throws at the sandbox: failures are
// `{ error }`.
import { performance } from 'node:perf_hooks';
import type { Catalogue, ApiOperation } from '../openapi/catalogue.ts';
import type { AuthScheme } from '../config/auth.ts';
import type { Profile } from '../profiles/profile.ts';
import type { ApiCallRequest, ApiCallResult } from '../sandbox/engine.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { buildUpstreamRequest } from './requestBuilder.ts';
import { BlockedAddressError, resolveAllowedAddress, type PinnedAddress, type Resolver } from './addressPolicy.ts';
import { nodeTransport, type Transport } from './upstream.ts';
import { createRedactor, redactDeep, type Redactor } from './redactor.ts';
import { classifyRequest, findMethodOverride } from './classify.ts';
import { decideHop, gateError, type DecisionContext } from './gateDecision.ts';
import { isStandIn, redirectHop, type Hop } from './hop.ts';
import { responseView } from './responseView.ts';
import { gatherEvidence, type EvidenceSource } from './evidence.ts';
import type { ApiCallRecord, ApprovalDecision, ApprovalHook, GateDecision, RunContext } from './types.ts';

export interface GateApi {
  profile: Profile;
  baseUrl: string;
  auth: AuthScheme;
  catalogue: Catalogue;
}

export interface EgressGateOptions {
  api: GateApi;
  /** The API key, read at each call (it may change); undefined when none is configured. */
  getCredential(): string | undefined | Promise<string | undefined>;
  /** The process-wide redactor (every known secret), so the gate, logs and audit scrub alike; defaults to one for the current key. */
  redactor?(): Redactor;
  /** Where the key comes from, as the approval dialog names it (`keychain: demo`). */
  credentialSource?(): string;
  approvals?: ApprovalHook;
  resolver?: Resolver;
  transport?: Transport;
  /** Per-caller rate limit on HTTP calls: false means over the limit. */
  rateLimit?(callerKey: string): boolean;
  /** Records the call (the audit store); the result goes back only once it settles, and not at all if it throws. */
  onApiCall?(record: ApiCallRecord): void | Promise<unknown>;
  logger?: Logger;
  responseBytes?: number;
  timeoutMs?: number;
  now?: () => Date;
}

export interface EgressGate {
  call(request: ApiCallRequest, run: RunContext): Promise<ApiCallResult>;
  /** Whether an operation is treated as a mutation under this profile. */
  isMutation(op: ApiOperation): boolean;
  /** A redactor for the current credential (logs, audit, errors). */
  redactor(): Promise<Redactor>;
}

const PIN_TTL_MS = 30_000;
const MAX_REDIRECTS = 3;

export { MASK, requestHash } from './gateDecision.ts';

class AuditWriteError extends Error {}

export function createEgressGate(options: EgressGateOptions): EgressGate {
  const { api } = options;
  const log = options.logger ?? silentLogger;
  const transport = options.transport ?? nodeTransport;
  const now = options.now ?? (() => new Date());
  const origin = new URL(api.baseUrl);
  const basePath = origin.pathname.replace(/\/+$/, '');
  const pins = new Map<string, { pinned: PinnedAddress; until: number }>();
  // The profile's own record, so a policy set while the companion runs (profiles.setOperationPolicy) applies to the next call.
  const operationPolicies = (api.profile.operationPolicies ??= {});
  const policyProfile = {
    name: api.profile.name,
    policy: api.profile.policy,
    readOnly: api.profile.readOnly,
    mutations: api.profile.mutations,
    operationPolicies,
  };
  const credentialHeader =
    api.auth.type === 'bearer' || api.auth.type === 'basic'
      ? 'authorization'
      : api.auth.type === 'header'
        ? api.auth.name.toLowerCase()
        : api.auth.type === 'cookie'
          ? 'cookie'
          : undefined;
  const credentialQuery = api.auth.type === 'query' ? api.auth.name : undefined;
  let cachedRedactor: { key: string | undefined; redactor: Redactor } | undefined;

  const redactorFor = (credential: string | undefined): Redactor => {
    const shared = options.redactor?.();
    // The shared redactor knows the key once it was resolved; if it somehow does not, never hand back an unscrubbed answer.
    if (shared && (!credential || shared.leaks(credential))) return shared;
    if (!cachedRedactor || cachedRedactor.key !== credential) cachedRedactor = { key: credential, redactor: createRedactor([credential]) };
    return cachedRedactor.redactor;
  };
  const isMutation = (op: ApiOperation) => op.mutation || api.profile.mutations.includes(op.id);
  /**
   * Whether a hop would go out as a read, with no decision of its own: an operation the document describes
   * (a path it does not, or spells differently, could be anything on the server) that the classifier,
   * policies included, calls a read.
   */
  const isPlainRead = (hop: Hop) =>
    !isStandIn(hop.op) &&
    classifyRequest({ op: hop.op, method: hop.method, ...(hop.override ? { override: hop.override } : {}), profile: policyProfile }).kind === 'read';

  async function pin(hostname: string): Promise<PinnedAddress> {
    const cached = pins.get(hostname);
    if (cached && cached.until > Date.now()) return cached.pinned;
    const pinned = await resolveAllowedAddress(hostname, {
      allowPrivateNetwork: api.profile.allowPrivateNetwork,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
    pins.set(hostname, { pinned, until: Date.now() + PIN_TTL_MS });
    return pinned;
  }

  const decisionContext: DecisionContext = {
    profile: policyProfile,
    auth: api.auth,
    credentialHeader,
    origin,
    approvals: options.approvals,
    credentialSource: () => options.credentialSource?.() ?? 'keychain',
  };

  /** The headers and path a request goes out with once the credential is added (the sandbox never holds it). */
  function withCredential(headers: Record<string, string>, pathAndQuery: string, credential: string | undefined) {
    const out = { ...headers };
    if (credential && api.auth.type === 'bearer') out.authorization = `Bearer ${credential}`;
    if (credential && api.auth.type === 'basic') out.authorization = `Basic ${Buffer.from(credential).toString('base64')}`;
    if (credential && api.auth.type === 'header') out[api.auth.name.toLowerCase()] = credential;
    if (credential && api.auth.type === 'cookie') out.cookie = [out.cookie, `${api.auth.name}=${credential}`].filter(Boolean).join('; ');
    const target = credential && credentialQuery ? appendQuery(pathAndQuery, credentialQuery, credential) : pathAndQuery;
    return { headers: out, target };
  }

  /**
   * The read behind the evidence a person sees beside a held PATCH, PUT or DELETE: a GET to the profile's own
   * origin and pinned address, with the call's credential, no redirect followed, a short deadline and a size
   * cap. Its answer goes to the prompt only, never back to the script.
   */
  const evidenceSource =
    (credential: string | undefined): EvidenceSource =>
    async (hop, method, redact, run) => {
      // Only for a person who will see it: not when a grant answers, nor when nobody can be asked in Airlock.
      const asks = options.approvals?.asksPerson?.({
        runId: run.runId,
        profile: api.profile.name,
        operationId: hop.op.id,
        callerKey: run.caller.key,
        ...(run.caller.clientName ? { clientName: run.caller.clientName } : {}),
        ...(hop.override ? { overridden: true } : {}),
      });
      if (asks === false) return undefined;
      return gatherEvidence(hop, method, {
        catalogue: api.catalogue,
        isPlainRead: (read) => classifyRequest({ op: read, method: 'GET', profile: policyProfile }).kind === 'read',
        basePath,
        redact,
        log,
        runId: run.runId,
        ...(run.signal ? { signal: run.signal } : {}),
        read: async (pathAndQuery, { operationId, ...limits }) => {
          if (credential && api.auth.type === 'basic' && !credential.includes(':')) throw new Error('the key is not username:password');
          const { headers, target } = withCredential({ accept: 'application/json' }, pathAndQuery, credential);
          const startedAt = now().toISOString();
          const started = performance.now();
          // Audited like any call that carries the key (decision "evidence"), before the prompt shows what it read.
          const audit = (status: number, bytes: number, error?: string) =>
            Promise.resolve(
              options.onApiCall?.({
                runId: run.runId,
                callerKey: run.caller.key,
                ...(run.caller.clientName ? { clientName: run.caller.clientName } : {}),
                profile: api.profile.name,
                operationId,
                method: 'GET',
                url: redact(new URL(pathAndQuery, origin).href),
                status,
                durationMs: performance.now() - started,
                bytes,
                decision: 'evidence',
                ...(error ? { error } : {}),
                startedAt,
              }),
            ).catch((e: unknown) => log.error(`recording the evidence read failed: ${(e as Error).message}`));
          try {
            const response = await transport({ origin, pinned: await pin(origin.hostname), method: 'GET', pathAndQuery: target, headers, ...limits });
            await audit(response.status, response.body.length);
            return response;
          } catch (error) {
            await audit(0, 0, (error as Error).message);
            throw error;
          }
        },
      });
    };

  async function call(call: ApiCallRequest, run: RunContext): Promise<ApiCallResult> {
    const started = performance.now();
    const startedAt = now().toISOString();
    let credential: string | undefined;
    const emit = async (full: ApiCallRecord) => {
      run.calls.push({ method: full.method, url: full.url, status: full.status, decision: full.decision });
      // The path without its query (search terms, filters): the log is readable by every client through server_log; the audit has the rest.
      const sent = full.method ? ` ${full.method} ${pathOnly(full.url)}${full.status ? ` → ${full.status}` : ''}` : '';
      log.info(`${full.operationId || 'call'}: ${full.decision}${sent}${full.error ? ` (${full.error})` : ''}`, { runId: full.runId });
      try {
        await options.onApiCall?.(full);
      } catch (error) {
        // Fail closed: a call that cannot be audited does not hand its result back.
        log.error(`recording an API call failed: ${(error as Error).message}`);
        throw new AuditWriteError((error as Error).message);
      }
    };
    try {
      credential = (await options.getCredential()) || undefined;
    } catch (error) {
      // The keychain is down and no AIRLOCK_API_KEY: say so, never send unauthenticated behind the person's back.
      const message = (error as { line?: string }).line ?? (error as Error).message;
      await emit({
        runId: run.runId,
        callerKey: run.caller.key,
        ...(run.caller.clientName ? { clientName: run.caller.clientName } : {}),
        profile: api.profile.name,
        operationId: String(call?.operationId ?? ''),
        method: '',
        url: '',
        status: 0,
        durationMs: 0,
        bytes: 0,
        decision: 'refused',
        error: message,
        startedAt,
      });
      return gateError(
        'airlock_credential_unavailable',
        `${message}. The person running Airlock can fix the keychain, or set the key with \`airlock keys set <profile>\` or AIRLOCK_API_KEY.`,
      );
    }
    const redact = redactorFor(credential);
    const firstOp = typeof call?.operationId === 'string' ? api.catalogue.byId(call.operationId) : undefined;
    const record = async (op: ApiOperation | undefined, method: string, partial: Partial<ApiCallRecord> & Pick<ApiCallRecord, 'decision' | 'status'>) => {
      const full: ApiCallRecord = {
        runId: run.runId,
        callerKey: run.caller.key,
        ...(run.caller.clientName ? { clientName: run.caller.clientName } : {}),
        profile: api.profile.name,
        operationId: op?.id ?? String(call?.operationId ?? ''),
        method,
        url: '',
        bytes: 0,
        durationMs: performance.now() - started,
        startedAt,
        ...partial,
      };
      if (full.error) full.error = redact(full.error);
      full.url = redact(full.url);
      await emit(full);
    };
    const refuse = async (
      op: ApiOperation | undefined,
      method: string,
      result: ApiCallResult,
      decision: GateDecision,
      url = '',
      approval?: ApprovalDecision,
    ) => {
      const message = (result.error as { message?: string }).message ?? '';
      await record(op, method, { decision, status: result.status, url, error: message, ...(approval ? { approval: approvalSummary(approval) } : {}) });
      return { ...result, error: redactDeep(result.error, redact) };
    };

    if (!firstOp) return await refuse(undefined, '', gateError('airlock_unknown_operation', `unknown operation '${String(call?.operationId)}'`), 'refused');
    const built = buildUpstreamRequest(firstOp, call, basePath, {
      ...(credentialHeader ? { credentialHeader } : {}),
      ...(credentialQuery ? { credentialQuery } : {}),
      ...(api.auth.type === 'cookie' ? { credentialCookie: api.auth.name } : {}),
    });
    if (!built.ok) return await refuse(firstOp, firstOp.method, gateError('airlock_invalid_request', redact(built.message)), 'refused');
    const override = findMethodOverride(built.request.headers, call.query, call.body);
    let hop: Hop = {
      op: firstOp,
      method: built.request.method,
      pathAndQuery: built.request.pathAndQuery,
      headers: built.request.headers,
      body: built.request.body,
      query: call.query ?? {},
      bodyValue: call.body,
      ...(override ? { override } : {}),
    };

    if (api.auth.type !== 'none' && !credential) log.warn(`${firstOp.id}: no API key configured; sending without credentials`, { runId: run.runId });
    try {
      const pinned = await pin(origin.hostname);
      for (let hops = 0; ; hops++) {
        const shownUrl = `${origin.origin}${hop.pathAndQuery}`;
        const verdict = await decideHop({ ...decisionContext, evidence: evidenceSource(credential) }, hop, shownUrl, run, redact, credential !== undefined);
        const approval = verdict.approval ? { approval: approvalSummary(verdict.approval) } : {};
        if (verdict.refusal) return await refuse(hop.op, hop.method, verdict.refusal, verdict.decision, shownUrl, verdict.approval);
        if (run.signal?.aborted)
          return await refuse(
            hop.op,
            hop.method,
            gateError('airlock_run_ended', 'the run ended before the call was sent'),
            'refused',
            shownUrl,
            verdict.approval,
          );
        if (options.rateLimit && !options.rateLimit(run.caller.key)) {
          return await refuse(
            hop.op,
            hop.method,
            gateError('airlock_rate_limited', 'too many API calls from this client: slow down and retry (the limit is a setting: --rate-limit)', 429),
            'refused',
            shownUrl,
          );
        }
        if (credential && api.auth.type === 'basic' && !credential.includes(':')) {
          return await refuse(
            hop.op,
            hop.method,
            gateError('airlock_credential_format', `the key of profile ${api.profile.name} must be username:password for HTTP Basic auth`, 401),
            'refused',
            shownUrl,
          );
        }
        const { headers, target } = withCredential(hop.headers, hop.pathAndQuery, credential);
        const response = await transport({
          origin,
          pinned,
          method: hop.method,
          pathAndQuery: target,
          headers,
          ...(hop.body ? { body: hop.body } : {}),
          maxBytes: options.responseBytes ?? 10 * 1024 * 1024,
          timeoutMs: options.timeoutMs ?? 30_000,
          ...(run.signal ? { signal: run.signal } : {}),
        });
        const location = response.headers.location;
        const redirect = response.status >= 300 && response.status < 400 && typeof location === 'string' && response.status !== 304;
        if (redirect) {
          let next: URL;
          try {
            next = new URL(location, shownUrl);
          } catch {
            return await refuse(
              hop.op,
              hop.method,
              gateError('airlock_redirect_refused', 'the API answered with a redirect to an invalid location', response.status),
              verdict.decision,
              shownUrl,
              verdict.approval,
            );
          }
          if (next.origin !== origin.origin) {
            // The key never follows a redirect to another origin: nothing is sent there.
            return await refuse(
              hop.op,
              hop.method,
              gateError(
                'airlock_redirect_refused',
                `the API redirected to another origin (${redact(next.origin)}); the gate only talks to ${origin.origin}`,
                response.status,
              ),
              verdict.decision === 'read' ? 'refused' : verdict.decision,
              shownUrl,
              verdict.approval,
            );
          }
          const following = redirectHop(hop, response.status, next, api.catalogue, basePath);
          // Only a read that leads to a read is followed: a redirect of anything that may change data (by
          // method, override, document mark or policy), or one that makes a read something else, is handed
          // back unfollowed — a grant or an approval given for this request never carries over to another.
          const unfollowed = verdict.decision !== 'read' || !isPlainRead(following) ? redirectNotFollowed(hop, following, response.status) : undefined;
          if (unfollowed || hops >= MAX_REDIRECTS) {
            const hint = unfollowed ?? `the API redirected more than ${MAX_REDIRECTS} times; the last redirect (to ${following.pathAndQuery}) was not followed`;
            const result = responseView(response, redact);
            await record(hop.op, hop.method, {
              decision: verdict.decision,
              status: response.status,
              url: shownUrl,
              bytes: response.body.length,
              error: redact(hint),
              ...approval,
            });
            return {
              ...result,
              error: { code: 'airlock_redirect_not_followed', message: redact(hint), location: redact(next.href), body: result.error },
            };
          }
          // This hop is done: record it, then send the read it leads to (itself checked again by decideHop).
          await record(hop.op, hop.method, { decision: verdict.decision, status: response.status, url: shownUrl, bytes: response.body.length, ...approval });
          hop = following;
          continue;
        }
        if (response.truncated) {
          const limit = options.responseBytes ?? 10 * 1024 * 1024;
          return await refuse(
            hop.op,
            hop.method,
            gateError(
              'airlock_response_too_large',
              `the response of ${hop.op.id} is larger than ${limit} bytes; ask for less (filters, limit, fields)`,
              response.status,
            ),
            verdict.decision,
            shownUrl,
            verdict.approval,
          );
        }
        const result = responseView(response, redact);
        await record(hop.op, hop.method, { decision: verdict.decision, status: response.status, url: shownUrl, bytes: response.body.length, ...approval });
        return result;
      }
    } catch (error) {
      if (error instanceof AuditWriteError) throw error;
      const shownUrl = `${origin.origin}${hop.pathAndQuery}`;
      if (error instanceof BlockedAddressError)
        return await refuse(hop.op, hop.method, gateError('airlock_blocked_address', redact(error.message)), 'refused', shownUrl);
      const aborted = run.signal?.aborted || (error as Error).name === 'AbortError';
      const message = aborted ? 'the run ended before the API answered' : `could not reach ${origin.origin}: ${(error as Error).message}`;
      return await refuse(hop.op, hop.method, gateError(aborted ? 'airlock_run_ended' : 'airlock_network_error', redact(message)), 'refused', shownUrl);
    }
  }

  return {
    call: async (request, run) => {
      try {
        return await call(request, run);
      } catch (error) {
        if (error instanceof AuditWriteError)
          return gateError('airlock_audit_failed', 'the audit log could not record this call, so its result is withheld; see the Airlock log');
        log.error(`egress gate failure: ${(error as Error).stack ?? error}`);
        return gateError('airlock_internal_error', 'the gate failed to handle this call; see the Airlock log');
      }
    },
    isMutation,
    redactor: async () => redactorFor((await options.getCredential()) || undefined),
  };
}

function approvalSummary(d: ApprovalDecision): NonNullable<ApiCallRecord['approval']> {
  return d.approved
    ? { by: d.by, at: d.at, scope: d.scope, ...(d.grantId ? { grantId: d.grantId } : {}) }
    : { by: d.by, at: d.at, reason: d.reason, code: d.code };
}

/** Why a redirect is handed back to the script instead of followed. */
function redirectNotFollowed(from: Hop, to: Hop, status: number): string {
  const first = `${from.method.toUpperCase()} ${from.op.path}`;
  return (
    `the API answered ${first} with ${status}, redirecting to ${to.method.toUpperCase()} ${to.pathAndQuery}; ` +
    'Airlock does not follow a redirect of a call that may change data, nor one that leads a read to something else ' +
    '(a call that may change data, or a path the API document does not describe), ' +
    'because the approval of the first request does not cover the second. The status and Location header are in this result: ' +
    `if the second request is what you want, make it as a call of its own (operation ${to.op.hasOperationId ? to.op.id : 'at that path'}), which is checked and approved on its own.`
  );
}

function appendQuery(pathAndQuery: string, name: string, value: string): string {
  return `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
}

/** A URL's path, without origin or query. */
function pathOnly(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
}
