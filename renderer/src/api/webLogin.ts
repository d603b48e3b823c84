// Web mode sign-in: a login link carries a one-time token in its fragment
// (#login=…); the page trades it for the HttpOnly session cookie, then
// removes it from the address bar and the history.
export async function completeWebLogin(): Promise<'signed-in' | 'failed' | 'none'> {
  const m = /^#login=([0-9a-f]{64})$/.exec(location.hash);
  if (!m) return 'none';
  history.replaceState(null, '', `${location.pathname}#/overview`);
  const response = await fetch('/ui/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: m[1] }),
  }).catch(() => undefined);
  return response?.ok ? 'signed-in' : 'failed';
}
