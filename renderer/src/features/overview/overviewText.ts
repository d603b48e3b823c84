// The Overview's sentences that are built from status fields: how the API
// key is sent, where the key in use came from, and what "Copy" puts on the
// clipboard for an HTTP client (never the token itself: where it is).
import type { Status } from '../../../../contract/status.ts';
import { shellQuote } from '../../../../contract/values.ts';
import { envWords } from '../apis/keyState.ts';

/** `header:x-api-key` → "in the x-api-key header". */
export function authWords(auth: string): string {
  const [type, name] = auth.split(/:(.*)/s) as [string, string | undefined];
  switch (type) {
    case 'bearer':
      return 'as a bearer token';
    case 'basic':
      return 'as basic auth';
    case 'header':
      return `in the ${name} header`;
    case 'query':
      return `in the ${name} query parameter`;
    case 'cookie':
      return `in the ${name} cookie`;
    default:
      return auth;
  }
}

/** Where the key in use came from: "the OS keychain", "the plaintext key file"… */
export function credentialFrom(s: Status): string {
  return s.credential.source === 'env'
    ? envWords(s.credential)
    : s.credential.source === 'file'
      ? 'the plaintext key file'
      : s.credential.source === 'keychain'
        ? s.secretStore.osKeychain
          ? 'the OS keychain'
          : s.secretStore.where
        : 'nowhere';
}

/** "Key sk…1a2b from the OS keychain". */
export function credentialWords(s: Status): string {
  return keyWords(s.credential.fingerprint, credentialFrom(s));
}

/** "Key sha256:… from the plaintext key file". */
export function keyWords(fingerprint: string | undefined, from: string): string {
  return `Key ${fingerprint ?? ''} from ${from}`.replace('Key  ', 'Key ');
}

/** What "Copy the URL and how to pass the token" copies. */
export function httpConnectText(url: string, tokenFile: string | undefined): string {
  const lines = [`MCP endpoint (Streamable HTTP): ${url}`];
  if (tokenFile) {
    lines.push(`Send the MCP token as the header: Authorization: Bearer <token>  (the token is in ${tokenFile})`);
    lines.push(`In a shell: --header "Authorization: Bearer $(cat ${shellQuote(tokenFile)})"`);
  } else {
    lines.push('Send the MCP token as the header: Authorization: Bearer <token>');
  }
  return lines.join('\n');
}
