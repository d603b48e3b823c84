// The egress gate: the one module every API call from sandboxed code goes
// through, whatever the engine. It maps the call to a catalogue operation,
// classifies it (read or mutation), applies the profile's policy (asking the
// approval hook under `ask`), rate-limits per caller, builds the request for
// the profile's origin only, checks and pins the address, adds the
// credential (the sandbox never holds it), follows no redirect to another
// origin, scrubs the credential from everything it hands back, and records
// the call. It never throws at the sandbox: failures are `{ error }` results.
import { performance } from 'node:perf_hooks';
import type { Catalogue, ApiOperation } from '../openapi/catalogue.ts';
import type { AuthScheme } from '../config/auth.ts';
import type { Profile } from '../profiles/profile.ts';
import type { ApiCallRequest, ApiCallResult } from '../sandbox/engine.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { buildUpstreamRequest } from './requestBuilder.ts';
import { BlockedAddressError, resolveAllowedAddress, type PinnedAddress, type Resolver } from './addressPolicy.ts';
import { nodeTransport, type Transport, type UpstreamResponse } from './upstream.ts';
import { createRedactor, redactDeep, type Redactor } from './redactor.ts';
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
  approvals?: ApprovalHook;
  resolver?: Resolver;
  transport?: Transport;
  /** Per-caller rate limit on HTTP calls: false means over the limit. */
  rateLimit?(callerKey: string): boolean;
  onApiCall?(record: ApiCallRecord): void;
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

export const NO_APPROVER_MESSAGE =
  'needs a person\'s approval, and no approver is attached. To approve it: open the Airlock app, or run `airlock approvals list` and `airlock approvals approve <id>` against a running `airlock serve`; or change the profile\'s mutation policy to "allow".';

const PIN_TTL_MS = 30_000;
const MAX_REDIRECTS = 3;

function gateError(code: string, message: string, status = 0): ApiCallResult {
  return { data: null, error: { code, message }, status };
}

export function createEgressGate(options: EgressGateOptions): EgressGate {
  const { api } = options;
  const log = options.logger ?? silentLogger;
  const transport = options.transport ?? nodeTransport;
  const now = options.now ?? (() => new Date());
  const origin = new URL(api.baseUrl);
  const basePath = origin.pathname;
  const pins = new Map<string, { pinned: PinnedAddress; until: number }>();
  const mutationIds = new Set(api.profile.mutations);
  let cachedRedactor: { key: string | undefined; redactor: Redactor } | undefined;

  const redactorFor = (credential: string | undefined): Redactor => {
    if (!cachedRedactor || cachedRedactor.key !== credential) cachedRedactor = { key: credential, redactor: createRedactor([credential]) };
    return cachedRedactor.redactor;
  };

  const isMutation = (op: ApiOperation) => op.mutation || mutationIds.has(op.id);

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

  async function decide(
    op: ApiOperation,
    url: string,
    call: ApiCallRequest,
    run: RunContext,
    redact: Redactor,
  ): Promise<{ decision: GateDecision; approval?: ApprovalDecision; refusal?: ApiCallResult }> {
    if (!isMutation(op)) return { decision: 'read' };
    const what = `${op.method} ${op.path} (${op.id})`;
    if (api.profile.readOnly)
      return { decision: 'refused', refusal: gateError('airlock_read_only', `${what} changes data, and profile '${api.profile.name}' is read-only.`) };
    switch (api.profile.policy) {
      case 'allow':
        return { decision: 'allowed' };
      case 'deny':
        return {
          decision: 'denied',
          refusal: gateError(
            'airlock_mutation_denied',
            `${what} changes data, and profile '${api.profile.name}' denies mutations (policy "deny"). A person can change the policy to "ask" or "allow".`,
          ),
        };
      case 'ask': {
        if (!options.approvals) return { decision: 'denied', refusal: gateError('airlock_approval_required', `${what} ${NO_APPROVER_MESSAGE}`) };
        const request = {
          kind: 'api-mutation' as const,
          runId: run.runId,
          caller: run.caller,
          profile: api.profile.name,
          operationId: op.id,
          method: op.method,
          pathTemplate: op.path,
          url,
          query: redactDeep(call.query ?? {}, redact) as Record<string, unknown>,
          bodyPreview: call.body === undefined ? '' : redact(JSON.stringify(call.body, null, 2) ?? '').slice(0, 16_384),
          scriptSha256: run.scriptSha256,
          scriptExcerpt: redact(run.scriptExcerpt),
        };
        const decision = await run.control.whilePaused(() =>
          options.approvals!.request(request, { ...(run.signal ? { signal: run.signal } : {}), ...(run.elicit ? { elicit: run.elicit } : {}) }),
        );
        if (decision.approved) return { decision: 'approved', approval: decision };
        if (decision.code === 'no_approver')
          return { decision: 'denied', approval: decision, refusal: gateError('airlock_approval_required', `${what} ${decision.reason}`) };
        const code = decision.code === 'timeout' ? 'airlock_approval_timeout' : 'airlock_mutation_denied';
        return { decision: 'denied', approval: decision, refusal: gateError(code, `${what} was not approved: ${decision.reason}`) };
      }
    }
  }

  function toResult(response: UpstreamResponse, redact: Redactor): ApiCallResult {
    const type = String(response.headers['content-type'] ?? '');
    let payload: unknown;
    if (response.body.length === 0) payload = null;
    else if (/json/i.test(type) || (!type && /^\s*[[{]/.test(response.body.subarray(0, 64).toString('utf8')))) {
      const text = redact(response.body.toString('utf8'));
      try {
        payload = JSON.parse(text);
      } catch {
        payload = text;
      }
    } else if (/^text\/|xml|yaml|csv|html|javascript/i.test(type)) {
      payload = redact(response.body.toString('utf8'));
    } else {
      payload = { contentType: type || 'application/octet-stream', bytes: response.body.length, base64: redact(response.body.toString('base64')) };
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(response.headers)) {
      if (v === undefined || k === 'set-cookie') continue;
      headers[k] = redact(Array.isArray(v) ? v.join(', ') : v);
    }
    const ok = response.status >= 200 && response.status < 300;
    const error = ok ? null : (payload ?? { message: `HTTP ${response.status}` });
    return { data: ok ? payload : null, error, status: response.status, headers };
  }

  async function call(call: ApiCallRequest, run: RunContext): Promise<ApiCallResult> {
    const started = performance.now();
    const startedAt = now().toISOString();
    let credential: string | undefined;
    try {
      credential = (await options.getCredential()) || undefined;
    } catch (error) {
      // The keychain is down and no AIRLOCK_API_KEY: say so, never send unauthenticated behind the person's back.
      const message = (error as { line?: string }).line ?? (error as Error).message;
      try {
        options.onApiCall?.({
          runId: run.runId,
          callerKey: run.caller.key,
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
      } catch (auditError) {
        throw new AuditWriteError((auditError as Error).message);
      }
      return gateError(
        'airlock_credential_unavailable',
        `${message}. The person running Airlock can fix the keychain, or set the key with \`airlock keys set <profile>\` or AIRLOCK_API_KEY.`,
      );
    }
    const redact = redactorFor(credential);
    const op = typeof call?.operationId === 'string' ? api.catalogue.byId(call.operationId) : undefined;
    const record = (partial: Partial<ApiCallRecord> & Pick<ApiCallRecord, 'decision' | 'status'>) => {
      const full: ApiCallRecord = {
        runId: run.runId,
        callerKey: run.caller.key,
        operationId: op?.id ?? String(call?.operationId ?? ''),
        method: op?.method ?? '',
        url: '',
        bytes: 0,
        durationMs: performance.now() - started,
        startedAt,
        ...partial,
      };
      if (full.error) full.error = redact(full.error);
      full.url = redact(full.url);
      try {
        options.onApiCall?.(full);
      } catch (error) {
        // Fail closed: a call that cannot be audited does not hand its result back.
        log.error(`recording an API call failed: ${(error as Error).message}`);
        throw new AuditWriteError((error as Error).message);
      }
    };
    const refuse = (result: ApiCallResult, decision: GateDecision, url = '', approval?: ApprovalDecision) => {
      const message = (result.error as { message?: string }).message ?? '';
      record({ decision, status: result.status, url, error: message, ...(approval ? { approval: approvalSummary(approval) } : {}) });
      return { ...result, error: redactDeep(result.error, redact) };
    };

    if (!op) return refuse(gateError('airlock_unknown_operation', `unknown operation '${String(call?.operationId)}'`), 'refused');
    const credentialHeader = api.auth.type === 'bearer' ? 'authorization' : api.auth.type === 'header' ? api.auth.name : undefined;
    const credentialQuery = api.auth.type === 'query' ? api.auth.name : undefined;
    const built = buildUpstreamRequest(op, call, basePath, {
      ...(credentialHeader ? { credentialHeader } : {}),
      ...(credentialQuery ? { credentialQuery } : {}),
    });
    if (!built.ok) return refuse(gateError('airlock_invalid_request', redact(built.message)), 'refused');
    const shownUrl = `${origin.origin}${built.request.pathAndQuery}`;

    const verdict = await decide(op, shownUrl, call, run, redact);
    if (verdict.refusal) return refuse(verdict.refusal, verdict.decision, shownUrl, verdict.approval);
    if (run.signal?.aborted) return refuse(gateError('airlock_run_ended', 'the run ended before the call was sent'), 'refused', shownUrl);
    if (options.rateLimit && !options.rateLimit(run.caller.key)) {
      return refuse(
        gateError('airlock_rate_limited', 'too many API calls from this client: slow down and retry (the limit is a setting: --rate-limit)', 429),
        'refused',
        shownUrl,
      );
    }
    if (api.auth.type !== 'none' && !credential) {
      log.warn(`${op.id}: no API key configured; sending without credentials`);
    }

    let pathAndQuery = built.request.pathAndQuery;
    let method = built.request.method;
    let body = built.request.body;
    const headers = { ...built.request.headers };
    if (credential && api.auth.type === 'bearer') headers.authorization = `Bearer ${credential}`;
    if (credential && api.auth.type === 'header') headers[api.auth.name.toLowerCase()] = credential;
    try {
      const pinned = await pin(origin.hostname);
      for (let hop = 0; ; hop++) {
        const target = credential && credentialQuery ? appendQuery(pathAndQuery, credentialQuery, credential) : pathAndQuery;
        const response = await transport({
          origin,
          pinned,
          method,
          pathAndQuery: target,
          headers,
          ...(body ? { body } : {}),
          maxBytes: options.responseBytes ?? 10 * 1024 * 1024,
          timeoutMs: options.timeoutMs ?? 30_000,
          ...(run.signal ? { signal: run.signal } : {}),
        });
        const location = response.headers.location;
        if (response.status >= 300 && response.status < 400 && typeof location === 'string') {
          const next = new URL(location, `${origin.origin}${pathAndQuery}`);
          if (next.origin !== origin.origin) {
            return refuse(
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
          if (hop < MAX_REDIRECTS && (response.status === 303 || method === 'GET' || method === 'HEAD')) {
            pathAndQuery = next.pathname + next.search;
            if (response.status === 303) {
              method = 'GET';
              body = undefined;
              delete headers['content-type'];
            }
            continue;
          }
        }
        if (response.truncated) {
          return refuse(
            gateError(
              'airlock_response_too_large',
              `the response of ${op.id} is larger than ${options.responseBytes ?? 10 * 1024 * 1024} bytes; ask for less (filters, limit, fields)`,
              response.status,
            ),
            verdict.decision,
            shownUrl,
            verdict.approval,
          );
        }
        const result = toResult(response, redact);
        record({
          decision: verdict.decision,
          status: response.status,
          url: shownUrl,
          bytes: response.body.length,
          ...(verdict.approval ? { approval: approvalSummary(verdict.approval) } : {}),
        });
        return result;
      }
    } catch (error) {
      if (error instanceof BlockedAddressError) return refuse(gateError('airlock_blocked_address', redact(error.message)), 'refused', shownUrl);
      const aborted = run.signal?.aborted || (error as Error).name === 'AbortError';
      const message = aborted ? 'the run ended before the API answered' : `could not reach ${origin.origin}: ${(error as Error).message}`;
      return refuse(
        gateError(aborted ? 'airlock_run_ended' : 'airlock_network_error', redact(message)),
        verdict.decision === 'read' ? 'refused' : verdict.decision,
        shownUrl,
        verdict.approval,
      );
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

class AuditWriteError extends Error {}

function approvalSummary(d: ApprovalDecision): NonNullable<ApiCallRecord['approval']> {
  return d.approved ? { by: d.by, at: d.at, scope: d.scope } : { by: d.by, at: d.at, reason: d.reason };
}

function appendQuery(pathAndQuery: string, name: string, value: string): string {
  return `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
}
