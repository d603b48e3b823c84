// Control API access for integration tests, and waiting for events on its
// stream (a condition with a deadline, not a sleep).
import type { ServerView } from '../../contract/servers.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createControlClient, type ControlClient } from '../../main/core/control/controlClient.ts';
import type { ControlEvent } from '../../contract/events.ts';
import type { PendingApproval } from '../../contract/approvals.ts';

export function controlClient(dataDir: string, url: string): ControlClient {
  return createControlClient(url, readFileSync(join(dataDir, 'control-token'), 'utf8').trim());
}

/** Resolves with the first streamed event that matches; rejects after `timeoutMs`. */
export async function waitForEvent<T extends ControlEvent['type']>(
  client: ControlClient,
  type: T,
  match: (e: Extract<ControlEvent, { type: T }>) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<Extract<ControlEvent, { type: T }>> {
  let close: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<Extract<ControlEvent, { type: T }>>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no '${type}' event within ${timeoutMs} ms`)), timeoutMs);
      client
        .openEvents((batch) => {
          for (const e of batch) if (e.type === type && match(e as Extract<ControlEvent, { type: T }>)) resolve(e as Extract<ControlEvent, { type: T }>);
        })
        .then((c) => (close = c), reject);
    });
  } finally {
    clearTimeout(timer);
    close?.();
  }
}

/**
 * Resolves with the pending approval once its client is marked as having stopped waiting (a condition with a
 * deadline: the `approval-updated` event may go out before a new event stream is attached, whose replay then
 * carries the mark on `approval-requested`).
 */
export async function waitForStoppedWaiting(client: ControlClient, id: string, timeoutMs = 15_000): Promise<PendingApproval> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const found = (await client.call('approvals.list', {})).find((p) => p.id === id);
    if (found?.clientStoppedWaitingAt) return found;
    if (Date.now() > deadline) throw new Error(`approval ${id} was not marked "client stopped waiting" within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Resolves with a server's view once `until` holds for it: checked at once, then each time the companion says its
 * servers changed (no polling), within a deadline.
 */
export async function waitForServer(client: ControlClient, name: string, until: (view: ServerView) => boolean, timeoutMs = 20_000): Promise<ServerView> {
  const current = async () => (await client.call('servers.list', {})).find((v) => v.name === name);
  let close: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<ServerView>((resolve, reject) => {
      let last: ServerView | undefined;
      const check = () =>
        void current().then((view) => {
          last = view;
          if (view && until(view)) resolve(view);
        }, reject);
      timer = setTimeout(() => reject(new Error(`server ${name} never got there within ${timeoutMs} ms: ${JSON.stringify(last)}`)), timeoutMs);
      client
        .openEvents((batch) => {
          if (batch.some((e) => e.type === 'servers-changed')) check();
        })
        .then((c) => {
          close = c;
          check();
        }, reject);
    });
  } finally {
    clearTimeout(timer);
    close?.();
  }
}
