// What happens when a client calls an MCP server's tool through Airlock, by
// default (issue 20): a server no person has reviewed yet is denied; else
// the server's own default when the person set one; else a tool that says it
// is read-only is allowed, and every other one asks a person — a tool that
// says nothing is treated as one that may destroy, as the MCP spec's
// annotation defaults do. A tool's own policy, set by a person, comes first.
export type ToolPolicy = 'allow' | 'ask' | 'deny';

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

export interface PolicyInput {
  annotations?: ToolAnnotations;
  /** The server's tool definitions have been reviewed and accepted. */
  reviewed: boolean;
  /** The person's policy for this tool, if set. */
  toolPolicy?: ToolPolicy;
  /** The person's default for this server's tools, if set. */
  serverDefault?: ToolPolicy;
}

export function toolPolicy(input: PolicyInput): ToolPolicy {
  if (!input.reviewed) return 'deny';
  if (input.toolPolicy) return input.toolPolicy;
  if (input.serverDefault) return input.serverDefault;
  return input.annotations?.readOnlyHint === true ? 'allow' : 'ask';
}
