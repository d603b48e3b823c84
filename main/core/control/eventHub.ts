// Fans control events (log lines, approvals, audit records) out to
// subscribers in batches, with a bounded backlog per subscriber: a slow
// reader loses the oldest events (and is told how many), never the server's
// memory.
import type { ControlEvent } from '../../../contract/events.ts';

export interface HubSubscriber {
  send(batch: ControlEvent[], dropped: number): void;
}

export class EventHub {
  private readonly subscribers = new Map<HubSubscriber, { queue: ControlEvent[]; dropped: number }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly batchMs: number;
  private readonly maxBacklog: number;

  constructor(options: { batchMs?: number; maxBacklog?: number } = {}) {
    this.batchMs = options.batchMs ?? 50;
    this.maxBacklog = options.maxBacklog ?? 2000;
  }

  get size(): number {
    return this.subscribers.size;
  }

  subscribe(s: HubSubscriber): () => void {
    this.subscribers.set(s, { queue: [], dropped: 0 });
    return () => void this.subscribers.delete(s);
  }

  publish(event: ControlEvent): void {
    if (this.subscribers.size === 0) return;
    for (const state of this.subscribers.values()) {
      state.queue.push(event);
      if (state.queue.length > this.maxBacklog) {
        state.queue.shift();
        state.dropped++;
      }
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.batchMs);
      this.timer.unref?.();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const [s, state] of this.subscribers) {
      if (state.queue.length === 0) continue;
      const batch = state.queue;
      const dropped = state.dropped;
      state.queue = [];
      state.dropped = 0;
      try {
        s.send(batch, dropped);
      } catch {
        this.subscribers.delete(s);
      }
    }
  }
}
