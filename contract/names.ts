// Names the contract's schemas and the core both need, as plain values with
// no zod: the command line and a companion's start read them before (or
// without) building any schema, and building one costs start-up time.
export const ENGINES = ['quickjs', 'deno', 'node'] as const;
export const NETWORK_MODES = ['executor', 'wrapper', 'none'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
/** An MCP server's name (issue 20): what its tools are written with (`mcp.<name>.<tool>`, `<name>__<tool>`). */
export const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,29}$/;
/** A saved API profile's name (its file is `<data dir>/profiles/<name>.json`). */
export const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
/** What `--api` and a registration's scope may name: an API's name or identifier. */
export const API_NAME = /^[A-Za-z0-9_$-]{1,40}$/;
