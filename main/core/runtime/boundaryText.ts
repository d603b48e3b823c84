// What the execute tool's description and the Overview say the deployment
// enforces: the sandbox, its network, the caps and how mutations are
// treated, in words a model and a person can check against the settings.
import type { NetworkMode, Settings } from '../config/settings.ts';
import type { Profile } from '../profiles/profile.ts';

/** One API the text speaks of: where its gate sends, and its profile's mutation policy. */
export interface BoundaryApi {
  baseUrl: string;
  profile: Profile;
}

export function boundaryText(options: { settings: Settings; network: NetworkMode; engineBoundary: string; apis: readonly BoundaryApi[] }): string {
  const { settings, network: mode, apis } = options;
  const network = {
    executor:
      settings.engine === 'quickjs'
        ? 'the only way out is the API client (QuickJS has no network)'
        : `the engine lets the sandbox reach only the gate (127.0.0.1:<gate port>)`,
    wrapper: 'the srt wrapper lets the sandbox reach only the gate',
    none: 'the network is NOT bounded: sandboxed code can reach any host this machine can (the API key still never enters the sandbox)',
  }[mode];
  const mutationsOf = (profile: Profile) =>
    profile.readOnly
      ? 'refused: the profile is read-only): none reach the API.'
      : `policy "${profile.policy}"): ${
          profile.policy === 'ask'
            ? `each waits for a person to approve it, up to ${Math.round(settings.approvalTimeoutMs / 1000)} s; no answer is a denial.`
            : profile.policy === 'deny'
              ? 'all are refused.'
              : 'allowed without asking.'
        }`;
  const gate =
    apis.length === 1
      ? `to ${apis[0]!.baseUrl} only, which adds the API key outside the sandbox.`
      : apis.length === 0
        ? 'to the API it belongs to (none is served yet).'
        : `to its own API's address only (${apis.map((a) => `${a.profile.name}: ${a.baseUrl}`).join(', ')}), which adds that API's key outside the sandbox; no API's key goes to another's address.`;
  const mutations =
    apis.length === 1 ? `Mutations (${mutationsOf(apis[0]!.profile)}` : apis.map((a) => `Mutations of ${a.profile.name} (${mutationsOf(a.profile)}`).join('\n');
  return [
    `Sandbox: ${options.engineBoundary} Network: ${network}; every API call goes through Airlock's egress gate ${gate}`,
    `Caps: ${settings.timeoutMs / 1000} s wall clock per run (time waiting for a person is not counted), ${settings.memoryMb} MB memory, ${settings.outputKb} KiB of output (result + console), ${settings.maxConcurrent} runs at once (${settings.perCallerConcurrent} per client), ${settings.rateLimit > 0 ? `${settings.rateLimit} calls/s per client (API calls and MCP tool calls)` : 'no rate limit'}.`,
    ...(mutations ? [mutations] : []),
  ].join('\n');
}

/** What a denied mutation tells the code when nobody can be asked, for the mode the companion runs in. */
export function noApproverMessage(mode: 'serve' | 'stdio'): string {
  return mode === 'stdio'
    ? 'needs a person\'s approval, and this stdio server has no approval window. To approve it: use a client that can ask you itself (MCP elicitation: VS Code, Claude Code, Cursor, Codex), or connect the client to the Airlock app or `airlock serve` and answer there; or set the profile\'s mutation policy to "allow".'
    : 'needs a person\'s approval, and no approver is attached. To approve it: open the Airlock app, or run `airlock approvals list` and `airlock approvals approve <id>`; or change the profile\'s mutation policy to "allow".';
}
