// Control API access for integration tests, and waiting for events on its
// stream (a condition, not a sleep).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createControlClient, type ControlClient } from '../../main/core/control/controlClient.ts';
import type { ControlEvent } from '../../main/core/control/contract.ts';

export function controlClient(dataDir: string, url: string): ControlClient {
  return createControlClient(url, readFileSync(join(dataDir, 'control-token'), 'utf8').trim());
}

/** Resolves with the first streamed event that matches. */
export async function waitForEvent<T extends ControlEvent['type']>(
  client: ControlClient,
  type: T,
  match: (e: Extract<ControlEvent, { type: T }>) => boolean = () => true,
): Promise<Extract<ControlEvent, { type: T }>> {
  let close: (() => void) | undefined;
  const found = await new Promise<Extract<ControlEvent, { type: T }>>((resolve) => {
    void client
      .events((batch) => {
        for (const e of batch) if (e.type === type && match(e as Extract<ControlEvent, { type: T }>)) resolve(e as Extract<ControlEvent, { type: T }>);
      })
      .then((c) => (close = c));
  });
  close?.();
  return found;
}
