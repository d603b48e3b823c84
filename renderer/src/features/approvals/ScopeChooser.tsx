// What an "Allow" covers, chosen before the allow button (as 1Password and
// Little Snitch ask it): this call only (the default), the rest of this run,
// or a grant — {this client | every client} × {this session | until
// revoked}. Only the scopes the core accepts for this request are offered:
// never "until revoked" for a deletion, and "this client, until revoked"
// only for a client that declared a name (the grant is bound to that name,
// which the chooser says plainly).
import type { ApprovalRequest, ApproveScope } from '../../../../contract/approvals.ts';
import { offeredScopes, untilRevokedWithheld } from '../../../../contract/approvals.ts';
import './approvalPrompt.css';

/** The choice's label, and the allow button's name for it. */
export const SCOPE_TEXT: Record<ApproveScope, { choice: string; button: string }> = {
  once: { choice: 'This call only', button: 'Allow once' },
  run: { choice: 'The rest of this run', button: 'Allow for the rest of this run' },
  session: { choice: 'This client, this session', button: 'Allow for this client, this session' },
  'client-always': { choice: 'This client, until revoked', button: 'Allow for this client, until revoked' },
  'everyone-session': { choice: 'Every client, until Airlock stops', button: 'Allow for every client, until Airlock stops' },
  always: { choice: 'Every client, until revoked', button: 'Allow for every client, until revoked…' },
};

function hintFor(scope: ApproveScope, r: ApprovalRequest): string | undefined {
  const client = r.caller.clientName ?? 'this client';
  switch (scope) {
    case 'run':
      return 'Later calls of this operation in the same script.';
    case 'session':
      return `${client}'s calls of this operation until its connection ends.`;
    case 'client-always':
      return r.caller.clientToken
        ? `Bound to the token of ${r.caller.clientToken.name} (its own, made on the Clients screen): no other client has it, and revoking the token revokes this. Kept after a restart.`
        : `Bound to the name "${r.caller.clientName ?? ''}" the client declares: another program that declares the same name gets it too. Kept after a restart.`;
    case 'everyone-session':
      return 'Any connected client, until Airlock stops.';
    case 'always':
      return 'Any client, kept after a restart. You confirm it first.';
    default:
      return undefined;
  }
}

export function ScopeChooser({
  request,
  value,
  onChange,
  idPrefix,
  refused = {},
}: {
  request: ApprovalRequest;
  value: ApproveScope;
  onChange(scope: ApproveScope): void;
  idPrefix: string;
  /** Scopes the organisation's policy refuses, with why: left out, and said once. */
  refused?: Partial<Record<string, string>>;
}) {
  const scopes = offeredScopes(request).filter((scope) => refused[scope] === undefined);
  const byOrganisation = Object.keys(refused).length > 0;
  const withheld = untilRevokedWithheld(request);
  return (
    <fieldset className="scope-chooser">
      <legend>What “Allow” covers</legend>
      {scopes.map((s) => {
        const id = `${idPrefix}-scope-${s}`;
        const hint = hintFor(s, request);
        return (
          <div key={s} className="scope-option">
            <input
              type="radio"
              id={id}
              name={`${idPrefix}-scope`}
              value={s}
              checked={value === s}
              onChange={() => onChange(s)}
              aria-describedby={hint ? `${id}-hint` : undefined}
            />
            <label htmlFor={id}>{SCOPE_TEXT[s].choice}</label>
            {hint ? (
              // Every hint is read with its choice; the chosen one's (and the name binding) is also shown.
              <span id={`${id}-hint`} className={value === s || s === 'client-always' ? 'scope-hint' : 'visually-hidden'}>
                {hint}
              </span>
            ) : null}
          </div>
        );
      })}
      {withheld ? <p className="scope-hint">{withheld}</p> : null}
      {byOrganisation ? <p className="scope-hint">Wider approvals are not offered: set by your organisation (its managed policy).</p> : null}
    </fieldset>
  );
}
