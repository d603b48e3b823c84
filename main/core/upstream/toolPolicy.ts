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

export type ToolKind = 'read-only' | 'writes' | 'may-destroy';

/** What a tool's annotations say it does: read-only, writes without destroying, or may destroy (which saying nothing means). */
export function toolKind(annotations: ToolAnnotations | undefined): ToolKind {
  if (annotations?.readOnlyHint === true) return 'read-only';
  return annotations?.destructiveHint === false ? 'writes' : 'may-destroy';
}

/** The person's policies as a server's entry keeps them. */
export interface EntryPolicies {
  defaultPolicy?: ToolPolicy | undefined;
  toolPolicies?: Record<string, ToolPolicy> | undefined;
}

/** The policy of a call to one tool of a reviewed server: the entry's policies, then the tool's annotations. */
export function policyFor(entry: EntryPolicies, tool: { name: string; annotations?: ToolAnnotations | undefined }): ToolPolicy {
  return toolPolicy({
    reviewed: true,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(entry.toolPolicies && Object.hasOwn(entry.toolPolicies, tool.name) ? { toolPolicy: entry.toolPolicies[tool.name] } : {}),
    ...(entry.defaultPolicy ? { serverDefault: entry.defaultPolicy } : {}),
  });
}
