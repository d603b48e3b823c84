// The joined stdio pipe's address and Upgrade token, shared by the companion
// (pipeMcpEndpoint.ts) and `airlock stdio` (leanMcpPipe.ts).
export const PIPE_PATH = '/mcp/pipe';
export const PIPE_PROTOCOL = 'airlock-mcp-lines';
