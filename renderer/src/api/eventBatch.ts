// What both ControlApi adapters do with an event batch as it arrives (the
// web client from its event stream, the desktop one from the preload's
// onEvents): check it against the contract's batch schema, pass it on when it
// matches, drop it when it does not. The drop is silent on purpose: a warning
// would go to the live log (uiLog.ts), come back as a log event, and — if the
// log entry is what no longer matches — be dropped and warned about again,
// for as long as the page is open.
import { controlEventBatchSchema, type ControlEvent } from '../../../contract/events.ts';

/** The batch, if it matches the contract; undefined if it does not (it is dropped whole). */
export function parseEventBatch(raw: unknown): ControlEvent[] | undefined {
  const parsed = controlEventBatchSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** A listener for raw batches that hands on only the ones that match the contract. */
export function acceptEventBatches(onBatch: (events: ControlEvent[]) => void): (raw: unknown) => void {
  return (raw) => {
    const batch = parseEventBatch(raw);
    if (batch) onBatch(batch);
  };
}
