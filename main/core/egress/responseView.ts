// What a script gets back from one API response: `{ data, error, status,
// headers }`, with the credential scrubbed from everything it can read, in
// the form it reads it. JSON is scrubbed as text, then parsed and scrubbed
// again string by string (so `\u`-escapes that spell the key are caught once
// decoded); text as text; anything else is scrubbed as bytes before it is
// base64-encoded, and the encoding is scrubbed once more. Headers, status
// text and error bodies go through the same redactor.
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { UpstreamResponse } from './upstream.ts';
import { redactDeep, type Redactor } from '../log/redactor.ts';

const TEXT_TYPES = /^text\/|json|xml|yaml|csv|html|javascript|x-www-form-urlencoded/i;

export function responseView(response: UpstreamResponse, redact: Redactor): ApiCallResult {
  const type = String(response.headers['content-type'] ?? '');
  let payload: unknown;
  if (response.body.length === 0) payload = null;
  else if (/json/i.test(type) || (!type && /^\s*[[{]/.test(response.body.subarray(0, 64).toString('utf8')))) {
    const text = redact(response.body.toString('utf8'));
    try {
      payload = redactDeep(JSON.parse(text), redact);
    } catch {
      payload = text;
    }
  } else if (TEXT_TYPES.test(type)) {
    payload = redact(response.body.toString('utf8'));
  } else {
    payload = {
      contentType: redact(type || 'application/octet-stream'),
      bytes: response.body.length,
      base64: redact(redact.redactBytes(response.body).toString('base64')),
    };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(response.headers)) {
    if (v === undefined || k === 'set-cookie') continue;
    headers[redact(k)] = redact(Array.isArray(v) ? v.join(', ') : String(v));
  }
  const ok = response.status >= 200 && response.status < 300;
  const error = ok ? null : (payload ?? { message: `HTTP ${response.status}${response.statusText ? ` ${redact(response.statusText)}` : ''}` });
  return { data: ok ? payload : null, error, status: response.status, headers };
}
