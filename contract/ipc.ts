// The Electron IPC channel names, in one place for both ends: the preload
// (which invokes and listens) and main/electron (which handles and sends).
// No schema here, so the preload bundles it without bundling zod.
import type { ControlMethodName } from './methods.ts';

const PREFIX = 'airlock:';

/** The invoke channel of one control method: the preload exposes one named function per method, never a generic invoke. */
export const channelOf = (method: ControlMethodName): `airlock:${ControlMethodName}` => `${PREFIX}${method}`;

/** Batches of control events, main to renderer (validated by the renderer against the contract, as over SSE). */
export const EVENTS_CHANNEL = `${PREFIX}events`;

/** A screen to show (e.g. 'approvals' from a notification's Review button), main to renderer. */
export const NAVIGATE_CHANNEL = `${PREFIX}navigate`;
