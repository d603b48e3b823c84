// A key typed into the APIs screen is used by the next run and never seen
// again: not in the page, the DOM, any response, the logs (the Logs screen,
// the control API's log query, the companion's stderr) or the run's result.
// The one request that carries it is the keys.set call that stores it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEchoApi, writeEchoSpec } from '../helpers/echoApi.ts';
import { serve } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient } from '../helpers/control.ts';
import { chromiumMissing, launchBrowser, nav, showsText, signedInPage } from '../helpers/browser.ts';
import { tempDir } from '../helpers/paths.ts';

const skip = chromiumMissing();
const KEY = 'sk_live_TYPED_e2e_5c9d1f3a7b2e8046';

test('a key typed into APIs is used by a run and never appears in the page, the network answers or the logs', { skip, timeout: 120_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const echo = await startEchoApi();
  t.after(() => echo.close());
  const spec = writeEchoSpec(dir, echo.url);
  const server = await serve(dir, ['--ui', '--spec', spec, '--auth', 'header:x-api-key', '--secret-store', 'file']);
  t.after(() => server.stop());
  const client = await httpClient(server.mcpUrl, server.token, 'e2e-keys');
  t.after(() => client.close());
  const browser = await launchBrowser();
  t.after(() => browser.close());

  const page = await signedInPage(browser, dir);
  const carriers: string[] = [];
  const answers: Promise<void>[] = [];
  page.on('request', (request) => {
    if ((request.postData() ?? '').includes(KEY) || request.url().includes(KEY)) carriers.push(request.url());
  });
  page.on('response', (response) => {
    // An event stream stays open while the page lives, so its body never ends and is not read here: a stream opened
    // again after a missed heartbeat (a loaded machine) once held this test until its deadline. What a stream sends
    // is what the screens show, and their DOM is checked below.
    if ((response.headers()['content-type'] ?? '').includes('text/event-stream')) return;
    answers.push(
      response.text().then(
        (body) => assert.ok(!body.includes(KEY), `the answer to ${response.url()} holds the key`),
        () => undefined, // aborted requests have no body to read
      ),
    );
  });

  await nav(page, 'APIs').click();
  const field = page.getByLabel('New API key for custom');
  await field.fill(KEY);
  await page.getByRole('button', { name: 'Store key for custom' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Key for custom stored \(/ })
    .waitFor({ timeout: 20_000 });
  assert.equal(await field.inputValue(), '', 'the field is emptied');

  // Used by the next run, outside the sandbox: the API got it, the script did not.
  const run = await execute(client, 'const r = await api.items.list(); console.log(JSON.stringify(r.data.headers)); return r.data.headers;');
  assert.equal(echo.received.at(-1)!.headers['x-api-key'], KEY);
  assert.ok(!run.text.includes(KEY), 'the result is scrubbed');

  await nav(page, 'Logs').click();
  await page
    .locator('.xterm-rows')
    .getByText(/x-api-key/)
    .first()
    .waitFor({ timeout: 20_000 });
  for (const name of ['Overview', 'Activity', 'APIs', 'Logs'] as const) {
    await nav(page, name).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    assert.ok(!(await page.content()).includes(KEY), `the ${name} screen's DOM holds the key`);
  }
  await Promise.all(answers);
  assert.equal(carriers.length, 1, `requests that carried the key: ${carriers.join(', ')}`);
  assert.match(carriers[0]!, /\/rpc\/keys\.set$/);

  const logs = await controlClient(dir, server.url).call('logs.query', { limit: 5000 });
  assert.ok(logs.length > 0);
  assert.ok(!JSON.stringify(logs).includes(KEY), 'the log query');
  assert.ok(!server.stderr().includes(KEY), "the companion's stderr");
});

// The keychain is made missing by taking away the D-Bus session, which only Linux's Secret Service needs (CI runs Linux).
const linuxOnly = process.platform === 'linux' ? skip : 'the keychain is made missing by taking away the D-Bus session (Linux)';
const SECOND_KEY = 'sk_live_SECOND_e2e_7a1c3e5b9d2f4068';
const SHARED_KEY = 'sk_live_SHARED_e2e_2b4d6f8a0c1e3579';

/** Waits until the text of `where` matches (a screen still loading its lists), and says what it showed when it does not. */
test(
  "with no keychain, an API added later takes its key from its own AIRLOCK_KEY_<API>, and one without it is told that variable's exact name",
  { skip: linuxOnly, timeout: 150_000 },
  async (t) => {
    const { dir, cleanup } = tempDir();
    t.after(cleanup);
    const echo = await startEchoApi();
    t.after(() => echo.close());
    const spec = writeEchoSpec(dir, echo.url);
    // No session bus: no keychain. AIRLOCK_API_KEY reaches only custom, the API the command named.
    const server = await serve(dir, ['--ui', '--spec', spec, '--auth', 'header:x-api-key'], {
      DBUS_SESSION_BUS_ADDRESS: undefined,
      AIRLOCK_API_KEY: SHARED_KEY,
      AIRLOCK_KEY_SECOND: SECOND_KEY,
    });
    t.after(() => server.stop());
    const control = controlClient(dir, server.url);
    // Two APIs added while it runs: second has its variable, third-api has none.
    await control.call('profiles.save', { name: 'second', spec, auth: 'header:x-api-key' });
    await control.call('profiles.save', { name: 'third-api', spec, auth: 'header:x-api-key' });
    const client = await httpClient(server.mcpUrl, server.token, 'e2e-env-keys');
    t.after(() => client.close());
    const browser = await launchBrowser();
    t.after(() => browser.close());

    const page = await signedInPage(browser, dir);
    await nav(page, 'APIs').click();
    const card = (name: string) => page.getByRole('region', { name });
    const keyOf = (name: string) => card(name).locator('dt:text-is("Key") + dd');
    await showsText(keyOf('second'), /^set: sha256:[0-9a-f]{12} \(in the AIRLOCK_KEY_SECOND environment variable\)$/);
    await showsText(keyOf('custom'), /^set: sha256:[0-9a-f]{12} \(in the AIRLOCK_API_KEY environment variable\)$/);
    await showsText(keyOf('third-api'), /^unknown: the keychain cannot be read here, and AIRLOCK_KEY_THIRD_API is not set$/);
    // The advice is named for the API it is about, and works: no AIRLOCK_API_KEY for an API the command did not name.
    const advice = await card('third-api').locator('.key-unavailable').innerText();
    assert.match(advice, /No key can be stored for third-api here/);
    assert.match(
      advice,
      /Or start Airlock with this API's key in the environment variable AIRLOCK_KEY_THIRD_API, or with --secret-store file \(.*plaintext file/,
    );
    assert.doesNotMatch(await page.locator('main').innerText(), /AIRLOCK_API_KEY`?\s*(environment variable )?when you start/);
    // Where keys are kept is not said where they cannot be (the notice says what to do instead).
    assert.doesNotMatch(await page.locator('main').innerText(), /API keys are kept in/);
    assert.ok(!(await page.content()).includes(SECOND_KEY), 'the key is never shown');

    // The Overview names each API's key and what the one without says.
    await nav(page, 'Overview').click();
    const keys = page.locator('dt:text-is("API keys") + dd');
    await showsText(keys, /second: Key sha256:[0-9a-f]{12} from the AIRLOCK_KEY_SECOND environment variable, sent in the x-api-key header/);
    await showsText(keys, /third-api: keys cannot be read here, and AIRLOCK_KEY_THIRD_API is not set/);
    const stepText = await page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: /^Add the API key/ }) })
      .innerText();
    assert.match(stepText, /Start Airlock with the key in AIRLOCK_KEY_THIRD_API/);

    // second's calls carry its own key; third-api's are refused, with the variable that would reach it.
    await execute(client, 'return (await second.items.list()).status;');
    assert.equal(echo.received.at(-1)!.headers['x-api-key'], SECOND_KEY);
    const sent = echo.received.length;
    const refused = await execute(
      client,
      'try { const r = await third_api.items.list(); return JSON.stringify(r.error ?? r.status); } catch (e) { return `${e.code ?? ""} ${e.message ?? e}`; }',
    );
    assert.match(refused.text, /airlock_credential_unavailable/);
    assert.match(refused.text, /AIRLOCK_KEY_THIRD_API/);
    assert.equal(echo.received.length, sent, 'nothing sent without its key');
  },
);
