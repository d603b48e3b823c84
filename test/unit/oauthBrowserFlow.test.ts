// The browser half of signing in to a remote MCP server (issue 20): the code
// comes back only with the state this sign-in sent; an answer for another
// sign-in is refused and the wait goes on; an authorization server's error
// ends it with its words; a port in use says so. The "browser" is a fetch of
// the callback, as the authorization server's redirect would make it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { freePort } from '../helpers/ports.ts';
import { browserAuthorize } from '../../main/core/upstream/oauthBrowserFlow.ts';

const T = { timeout: 10_000 };

const authUrl = (state: string) => new URL(`https://auth.example/authorize?client_id=c&state=${state}`);

test('the code comes back with the state this sign-in sent; an answer for another is refused and the wait goes on', T, async () => {
  const port = await freePort();
  const told: string[] = [];
  const answers: number[] = [];
  let browser: Promise<void> | undefined;
  const authorize = browserAuthorize({
    port,
    tell: (line) => told.push(line),
    open: () => {
      browser = (async () => {
        answers.push((await fetch(`http://127.0.0.1:${port}/callback?code=stolen&state=other`)).status);
        answers.push((await fetch(`http://127.0.0.1:${port}/callback?code=the-code&state=s1`)).status);
      })();
      return true;
    },
  });
  assert.equal((await authorize(authUrl('s1'))).get('code'), 'the-code');
  await browser;
  assert.deepEqual(answers, [400, 200]);
  assert.match(told[0]!, /Opening your browser to sign in\. If it does not open, go to:\n {2}https:\/\/auth\.example\/authorize/);
});

test("an authorization server's error ends the sign-in with its words; no browser: the address is printed", T, async () => {
  const port = await freePort();
  const told: string[] = [];
  const authorize = browserAuthorize({
    port,
    tell: (line) => {
      told.push(line);
      void fetch(`http://127.0.0.1:${port}/callback?error=access_denied&error_description=The+user+said+no&state=s2`);
    },
    open: () => false,
  });
  await assert.rejects(authorize(authUrl('s2')), /the sign-in did not finish: access_denied \(The user said no\)/);
  assert.match(told[0]!, /^Sign in at:/);
});

test('a port in use is said, with what to do', T, async (t) => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  t.after(() => busy.close());
  const port = (busy.address() as { port: number }).port;
  const authorize = browserAuthorize({ port, tell: () => undefined, open: () => true });
  await assert.rejects(authorize(authUrl('s3')), /cannot listen for the sign-in on 127\.0\.0\.1:\d+: the port is in use/);
});
