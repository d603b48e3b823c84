// The words the Servers screen says a server's facts in: the same as
// `airlock servers list|show` (main/cli/commands/servers.ts), so the screen
// and the terminal never disagree. A server's own words (a tool's
// description, its stderr, a diff of its definitions) are shown as text with
// control and bidi-override characters made visible, as the CLI prints them:
// a description cannot reorder what is shown around it.
import type { ServerReview, ServerView } from '../../../../contract/servers.ts';

export type ToolPolicy = ServerReview['tools'][number]['effective'];
export type ToolKind = ServerReview['tools'][number]['kind'];

export const REVIEW_WORDS: Record<ServerReview['state'], string> = {
  unreviewed: 'not reviewed yet (held)',
  accepted: 'accepted',
  changed: 'changed since you accepted it (held)',
};

export const KIND_WORDS: Record<ToolKind, string> = { 'read-only': 'read-only', writes: 'writes', 'may-destroy': 'may destroy' };

export const POLICY_WORDS: Record<ToolPolicy, string> = { allow: 'runs', ask: 'asks you', deny: 'refused' };

export type StateKind = 'off' | 'idle' | 'loading' | 'ready' | 'failed';

/** How a server runs, in words (`label`, then `detail`: why it failed or stopped); `wanted` is a switch still on its way. */
export function stateWords(v: ServerView, wanted: boolean | undefined): { text: string; label: string; detail?: string; kind: StateKind } {
  const words = (kind: StateKind, label: string, detail?: string) => ({
    kind,
    label,
    ...(detail !== undefined ? { detail } : {}),
    text: detail !== undefined ? `${label}: ${detail}` : label,
  });
  if (wanted === true && !v.enabled) return words('loading', 'Enabling…');
  if (wanted === false) return words('loading', 'Disabling…');
  switch (v.state) {
    case 'disabled':
      return words('off', 'Disabled', 'not started, and calls to its tools are refused');
    case 'configured':
      return words('idle', 'Not started yet (starts on first use)');
    case 'starting':
      return words('loading', 'Starting…');
    case 'connected':
      return words('ready', `Connected, ${v.toolCount ?? 0} tool${v.toolCount === 1 ? '' : 's'}`);
    case 'failed':
      return words('failed', 'Failed', v.reason ?? 'no reason given');
    case 'stopped':
      return words('failed', 'Stopped', v.reason ?? 'no reason given');
  }
}

/** Its tools against what a person accepted; absent: accepted once, compared again when it next starts. */
export function reviewWords(v: ServerView): { text: string; held: boolean } {
  if (v.review) return { text: REVIEW_WORDS[v.review], held: v.review !== 'accepted' };
  return { text: 'accepted (compared again with what it lists when it starts)', held: false };
}

/** A server's words as the screen may show them: no control characters but line breaks and tabs, no bidi overrides. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\ufffd');
}

/** The line that adds a server, as `airlock servers list` says it when there is none. */
export const ADD_COMMAND = 'airlock servers add NAME -- COMMAND [ARGS…]';
export const ADD_URL_COMMAND = 'airlock servers add NAME --url URL';

export function secretCommand(server: string, variable: string): string {
  return `airlock servers secret ${server} ${variable}`;
}
