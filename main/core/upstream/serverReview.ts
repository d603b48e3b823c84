// A server's tools as a person reviews them: each with what it says it does
// and the policy a call to it gets, what changed since a person accepted them
// (a diff per tool), and the digest of exactly these definitions, which an
// acceptance must name. The Servers screen, `airlock servers show` and
// `accept` all show this one view.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServerReview } from '../../../contract/servers.ts';
import type { ServerEntry } from './serverEntry.ts';
import { policyFor, toolKind } from './toolPolicy.ts';
import { changeDiff, reviewOf, toolsDigest, type PinnedTool } from './toolPins.ts';

export function serverReview(
  name: string,
  entry: ServerEntry,
  tools: readonly Tool[],
  accepted: readonly PinnedTool[] | undefined,
  redact: (text: string) => string,
): ServerReview {
  const review = reviewOf(accepted, tools);
  return {
    name,
    tools: tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: redact(t.description) } : {}),
      kind: toolKind(t.annotations),
      effective: policyFor(entry, t),
      ...(entry.toolPolicies && Object.hasOwn(entry.toolPolicies, t.name) ? { policy: entry.toolPolicies[t.name] } : {}),
      inputSchema: t.inputSchema,
    })),
    state: review.state,
    changes: review.changes.map((ch) => ({ tool: ch.tool, change: ch.change, diff: redact(changeDiff(ch)) })),
    digest: toolsDigest(tools),
  };
}
