// Control events to the renderer over IPC, in the batches the event hub
// already makes (~50 ms), with the same replay a web client gets on attach.
import type { WebContents } from 'electron';
import type { EventHub } from '../core/control/eventHub.ts';
import type { ControlEvent } from '../../contract/events.ts';
import { EVENTS_CHANNEL } from '../../contract/ipc.ts';

export function forwardEvents(hub: EventHub, contents: Pick<WebContents, 'send' | 'isDestroyed' | 'on'>, replay: () => ControlEvent[]): () => void {
  const send = (batch: ControlEvent[], dropped = 0) => {
    if (contents.isDestroyed()) return;
    contents.send(EVENTS_CHANNEL, dropped > 0 ? [{ type: 'dropped', count: dropped }, ...batch] : batch);
  };
  let off = hub.subscribe({ send });
  // A reload starts over: replay what a fresh page needs, then keep streaming.
  contents.on('did-finish-load', () => {
    off();
    send(replay());
    off = hub.subscribe({ send });
  });
  return () => off();
}
