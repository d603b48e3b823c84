// The contract shared by the core, the CLI, the preload and the renderer:
// zod schemas and the types derived from them, nothing else (no Node
// built-ins, no DOM), so it compiles under both the Node and the web config.
export * from './errors.ts';
export * from './logs.ts';
export * from './calls.ts';
export * from './approvals.ts';
export * from './audit.ts';
export * from './settings.ts';
export * from './status.ts';
export * from './profiles.ts';
export * from './engine.ts';
export * from './clients.ts';
export * from './methods.ts';
export * from './servers.ts';
export * from './control.ts';
export * from './events.ts';
export * from './controlApi.ts';
export * from './ipc.ts';
