// The control methods' names alone, with no schema behind them: what the
// Electron preload needs to expose one named function per method without
// bundling zod (a sandboxed preload loads one self-contained file).
// control.ts checks at compile time that this list and its table agree.
export const CONTROL_METHOD_NAMES = [
  'status',
  'sessions.list',
  'settings.get',
  'settings.update',
  'profiles.list',
  'profiles.save',
  'profiles.remove',
  'profiles.operations',
  'keys.list',
  'keys.set',
  'keys.remove',
  'approvals.list',
  'approvals.decide',
  'approvals.denyAll',
  'approvals.answered',
  'rules.list',
  'grants.list',
  'grants.revoke',
  'grants.revokeAll',
  'audit.query',
  'audit.verify',
  'logs.query',
  'ui.loginLink',
  'logs.append',
  'engine.matrix',
  'engine.apply',
  'profiles.setOperationPolicy',
  'profiles.inspect',
  'tokens.rotateMcp',
  'clients.list',
  'clients.change',
  'clients.undo',
  'apis.list',
  'apis.enable',
  'apis.disable',
] as const;

export type ControlMethodName = (typeof CONTROL_METHOD_NAMES)[number];
