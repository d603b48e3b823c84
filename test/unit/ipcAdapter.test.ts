// The desktop's IPC path end to end against a fake `electron`: the preload
// (loaded from source), the bridge and the event forwarder all take their
// channel names from contract/ipc.ts, and the renderer's IPC adapter checks
// event batches against the contract exactly as the web adapter checks the
// ones from its event stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { registerHooks } from 'node:module';
import { channelOf, EVENTS_CHANNEL, NAVIGATE_CHANNEL } from '../../contract/ipc.ts';
import { CONTROL_METHOD_NAMES } from '../../contract/methods.ts';
import type { ControlEvent } from '../../contract/events.ts';
import { registerIpcBridge } from '../../main/electron/ipcBridge.ts';
import { forwardEvents } from '../../main/electron/eventForwarder.ts';
import { createAttention } from '../../main/electron/attention.ts';
import { EventHub } from '../../main/core/control/eventHub.ts';
import { createDispatcher } from '../../main/core/control/dispatch.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { createIpcControlApi, type AirlockBridge } from '../../renderer/src/api/ipcControlApi.ts';
import { createWebControlApi } from '../../renderer/src/api/webControlApi.ts';

// --- a fake IPC: ipcRenderer.invoke reaches what ipcMain.handle registered; webContents.send reaches ipcRenderer.on.
const handlers = new Map<string, (event: unknown, input: unknown) => Promise<unknown>>();
const ipcMain = { handle: (c: string, h: never) => void handlers.set(c, h), removeHandler: (c: string) => void handlers.delete(c) };
const mainFrame = { url: 'app://airlock/index.html' };
const trusted = { senderFrame: mainFrame, sender: { mainFrame } };
const toRenderer = new EventEmitter();
const ipcRenderer = {
  invoke: async (channel: string, input: unknown) => {
    const handler = handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(trusted, input);
  },
  on: (channel: string, listener: (...args: unknown[]) => void) => void toRenderer.on(channel, listener),
  removeListener: (channel: string, listener: (...args: unknown[]) => void) => void toRenderer.removeListener(channel, listener),
};
const contents = {
  send: (channel: string, ...args: unknown[]) => void toRenderer.emit(channel, { sender: 'main' }, ...args),
  isDestroyed: () => false,
  on: () => undefined,
};

// --- the preload, from source, with `electron` resolved to the fake above.
const exposed = new Map<string, unknown>();
(globalThis as { fakePreloadElectron?: unknown }).fakePreloadElectron = {
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void exposed.set(key, api) },
  ipcRenderer,
};
const fakeElectron = 'export const { contextBridge, ipcRenderer } = globalThis.fakePreloadElectron;';
registerHooks({
  resolve: (specifier, context, next) =>
    specifier === 'electron'
      ? { url: `data:text/javascript,${encodeURIComponent(fakeElectron)}`, format: 'module', shortCircuit: true }
      : next(specifier, context),
});
await import('../../preload/index.ts');
const airlock = exposed.get('airlock') as AirlockBridge & Record<string, unknown>;

const dispatch = createDispatcher({ 'approvals.list': () => [], status: () => Promise.reject(new Error('not in this test')) } as never, silentLogger);

test('the preload invokes, for every contract method, the channel the bridge handles', { timeout: 10_000 }, async () => {
  assert.deepEqual([...exposed.keys()], ['airlock']);
  const off = registerIpcBridge(ipcMain as never, dispatch, { by: 'tester via desktop', channel: 'ipc' });
  try {
    assert.deepEqual([...handlers.keys()].sort(), CONTROL_METHOD_NAMES.map(channelOf).sort());
    for (const method of CONTROL_METHOD_NAMES) assert.equal(typeof airlock[method], 'function', method);
    // Through the preload and the bridge to the dispatcher, and back through the IPC adapter.
    assert.deepEqual(await createIpcControlApi(airlock).call('approvals.list', {}), []);
    const refused = (await (airlock['approvals.decide'] as (i: unknown) => Promise<unknown>)({ id: 'x', decision: 'maybe' })) as { error: { code: string } };
    assert.equal(refused.error.code, 'bad_input');
  } finally {
    off();
  }
});

test('events the forwarder sends reach the IPC adapter through the preload, on the contract channel', { timeout: 10_000 }, () => {
  const hub = new EventHub();
  const got: ControlEvent[][] = [];
  const stopForwarding = forwardEvents(hub, contents as never, () => []);
  const unsubscribe = createIpcControlApi(airlock).events((batch) => got.push(batch));
  try {
    hub.publish({ type: 'grants-changed' });
    hub.flush();
    assert.deepEqual(got, [[{ type: 'grants-changed' }]]);
    assert.equal(toRenderer.listenerCount(EVENTS_CHANNEL), 1);
  } finally {
    unsubscribe();
    stopForwarding();
  }
  assert.equal(toRenderer.listenerCount(EVENTS_CHANNEL), 0, 'unsubscribing removes the preload listener');
});

test("a notification's Review reaches the preload's onNavigate on the contract channel", { timeout: 10_000 }, () => {
  const screens: string[] = [];
  const off = (airlock.onNavigate as (l: (s: string) => void) => () => void)((s) => screens.push(s));
  const listeners = new Map<string, (...args: unknown[]) => void>();
  class FakeNotification {
    static isSupported = () => true;
    on(event: string, fn: (...args: unknown[]) => void) {
      listeners.set(event, fn);
    }
    show() {}
    close() {}
  }
  const win = { isVisible: () => false, isFocused: () => false, flashFrame() {}, show() {}, focus() {}, webContents: contents };
  const attention = createAttention({ Notification: FakeNotification, app: {} } as never, {
    tray: { setToolTip() {}, setTitle() {} } as never,
    window: () => win as never,
  });
  attention.update([{ id: 'apr_1', request: { method: 'POST', pathTemplate: '/events', operationId: 'events.create', caller: {} } } as never]);
  listeners.get('click')!();
  off();
  assert.deepEqual(screens, ['approvals']);
  assert.equal(toRenderer.listenerCount(NAVIGATE_CHANNEL), 0);
});

// --- malformed batches: the same ones through both adapters.
const valid: unknown[] = [[{ type: 'grants-changed' }], [{ type: 'dropped', count: 3 }, { type: 'rules-changed' }], []];
const malformed: unknown[] = [
  { type: 'grants-changed' }, // not a batch
  [{ type: 'no-such-event' }],
  [{ type: 'grants-changed' }, { type: 'dropped', count: 'three' }], // one bad event spoils the batch
  [{ type: 'settings-applied' }], // a field missing
  null,
  'grants-changed',
];
const arriving = [malformed[0], valid[0], ...malformed.slice(1, 4), valid[1], ...malformed.slice(4), valid[2]];

test('a malformed event batch over IPC is dropped, as it is over the web event stream', { timeout: 10_000 }, () => {
  // IPC: straight onto the events channel, as the main process would send it.
  const overIpc: ControlEvent[][] = [];
  const unsubscribe = createIpcControlApi(airlock).events((batch) => overIpc.push(batch));
  for (const batch of arriving) assert.doesNotThrow(() => contents.send(EVENTS_CHANNEL, batch));
  unsubscribe();

  // Web: the same batches as `batch` messages of the event stream, on both of its subscriptions.
  const sources: FakeEventSource[] = [];
  class FakeEventSource extends EventTarget {
    static readonly CLOSED = 2;
    readyState = 1;
    constructor() {
      super();
      sources.push(this);
    }
    close() {
      this.readyState = FakeEventSource.CLOSED;
    }
  }
  const original = Object.getOwnPropertyDescriptor(globalThis, 'EventSource');
  Object.defineProperty(globalThis, 'EventSource', { value: FakeEventSource, configurable: true, writable: true });
  const overSse: ControlEvent[][] = [];
  const withState: ControlEvent[][] = [];
  try {
    const web = createWebControlApi('/ui/api');
    const stopEvents = web.events((batch) => overSse.push(batch));
    const stopWithState = web.eventsWithState(
      (batch) => withState.push(batch),
      () => undefined,
    );
    assert.equal(sources.length, 2);
    for (const batch of arriving) {
      for (const source of sources) source.dispatchEvent(new MessageEvent('batch', { data: JSON.stringify(batch) }));
    }
    stopEvents();
    stopWithState();
  } finally {
    if (original) Object.defineProperty(globalThis, 'EventSource', original);
    else delete (globalThis as { EventSource?: unknown }).EventSource;
  }

  assert.deepEqual(overIpc, valid, 'IPC hands on the valid batches only, whole and in order');
  assert.deepEqual(overSse, overIpc, 'the web stream hands on exactly what IPC does');
  assert.deepEqual(withState, overIpc);
});
