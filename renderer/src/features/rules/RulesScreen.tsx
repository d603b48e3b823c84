// Rules: one place for what Airlock does with each call of one served API
// (picked at the top when several are served). One table, one row per operation: its policy (allow, ask, deny,
// or the profile's — changeable here), the grants people gave for it with
// their scope in words (this client or every client × this session or until
// revoked), what is in effect for its next call, and how many calls the rule
// let through, held for a person or refused, with the last one — counted from
// the audit, live. Grants of operations this document does not list (another
// profile's) are listed below the table, and every grant can be revoked.
import { useDeferredValue, useState } from 'react';
import type { Grant } from '../../../../contract/approvals.ts';
import { grantLine } from '../../../../contract/approvals.ts';
import type { RuleOperation } from '../../../../contract/rules.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useCall } from '../../api/hooks.ts';
import { grantScopeText } from '../approvals/GrantsList.tsx';
import { useRules } from './useRules.ts';
import { EffectiveBadge, Hits, when } from './ruleParts.tsx';
import './rules.css';
import { InlineText } from '../../components/InlineText.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import { messageOf } from '../../../../contract/values.ts';
import { TableScroll } from '../../components/TableScroll.tsx';
import { OrganisationNote } from '../../components/OrganisationNote.tsx';

/** Rows shown unless "every operation" is ticked: what a rule can matter for. */
function worthShowing(op: RuleOperation): boolean {
  return op.mutation || op.policySource === 'operation' || op.grantIds.length > 0 || op.hits.asked + op.hits.refused > 0;
}

function GrantLine({ grant, onRevoke }: { grant: Grant; onRevoke(g: Grant): void }) {
  return (
    <li className="grant-line">
      <span className="grant-scope">{grantScopeText(grant)}</span>{' '}
      <span className="muted">
        · used {grant.uses}× · last {grant.lastUsedAt ? when(grant.lastUsedAt) : 'never'} · given by {grant.grantedBy}
      </span>{' '}
      <button type="button" className="small" onClick={() => onRevoke(grant)}>
        Revoke
        <span className="visually-hidden">
          {' '}
          grant for {grant.operationId}, {grantScopeText(grant)}
        </span>
      </button>
    </li>
  );
}

export function RulesScreen() {
  const { api } = useControl();
  const served = useCall('apis.list', {}, { refreshOn: ['apis-changed'] });
  const ready = (served.data ?? []).filter((a) => a.state === 'ready');
  /** The API picked; undefined until the person picks one (the companion's primary API is shown). */
  const [picked, setPicked] = useState<string>();
  const chosen = picked && ready.some((a) => a.name === picked) ? picked : undefined;
  const rules = useRules(chosen);
  const [query, setQuery] = useState('');
  const [everything, setEverything] = useState(false);
  const [message, setMessage] = useState<ScreenMessage>();
  const [confirmRevokeAll, setConfirmRevokeAll] = useState(false);
  const needle = useDeferredValue(query).trim().toLowerCase();
  const view = rules.data;
  const grants = new Map((view?.grants ?? []).map((g) => [g.id, g]));
  const listedIds = new Set(view?.operations.flatMap((o) => o.grantIds) ?? []);
  const elsewhere = (view?.grants ?? []).filter((g) => !listedIds.has(g.id));
  const rows = (view?.operations ?? []).filter(
    (op) => (everything || worthShowing(op)) && (!needle || `${op.operationId} ${op.method} ${op.path} ${op.summary ?? ''}`.toLowerCase().includes(needle)),
  );

  const act = async (work: () => Promise<string>) => {
    try {
      setMessage({ kind: 'status', text: await work() });
      rules.reload();
    } catch (error) {
      setMessage({ kind: 'alert', text: messageOf(error) });
    }
  };
  const setPolicy = (op: RuleOperation, value: string) =>
    act(async () => {
      const r = await api.call('profiles.setOperationPolicy', {
        profile: view!.profile.name,
        operationId: op.operationId,
        policy: value === '' ? null : (value as 'allow' | 'ask' | 'deny'),
      });
      const policy = r.operation.policySource === 'operation' ? r.operation.policy : `the profile's (${r.operation.policy})`;
      return `${op.operationId}: ${policy}, from the next call${r.saved ? '' : ' (not saved: this profile came from --spec)'}.`;
    });
  const revoke = (g: Grant) =>
    act(async () => {
      const r = await api.call('grants.revoke', { id: g.id });
      return r.revoked ? `Revoked the grant for ${g.operationId} (${grantScopeText(g)}).` : `That grant was already gone.`;
    });
  const revokeAll = () =>
    act(async () => {
      setConfirmRevokeAll(false);
      const r = await api.call('grants.revokeAll', {});
      return `Revoked ${r.revoked} ${r.revoked === 1 ? 'grant' : 'grants'}: every held call asks again.`;
    });

  return (
    <div className="screen rules-screen">
      <h1 id="rules-title">Rules</h1>
      <OrganisationNote area="approvals" />
      {ready.length > 1 ? (
        <p className="rules-api">
          <label htmlFor="rules-api">API</label>{' '}
          <select id="rules-api" value={chosen ?? view?.profile.name ?? ''} onChange={(e) => setPicked(e.target.value)}>
            {ready.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
                {a.operations !== undefined ? ` (${a.operations} operations)` : ''}
              </option>
            ))}
          </select>
        </p>
      ) : null}
      {view ? (
        <p className="hint">
          Profile <strong>{view.profile.name}</strong>:{' '}
          {view.profile.readOnly
            ? 'read-only — every mutation is refused'
            : `mutations ${view.profile.policy === 'ask' ? 'ask a person' : view.profile.policy === 'allow' ? 'are allowed' : 'are refused'} unless an operation has its own policy`}
          . Reads are allowed. A grant lets a held call through without asking; it never overrides “deny”. Calls are counted from the audit
          {view.countedSince ? ` since ${when(view.countedSince)}` : ''}.
        </p>
      ) : null}
      {rules.error ? (
        <p role="alert">
          <InlineText text={rules.error.message} />
        </p>
      ) : null}
      <Message message={message} />
      {!rules.error && (!view || (chosen !== undefined && view.profile.name !== chosen)) ? (
        <p role="status">Loading the rules{chosen ? ` of ${chosen}` : ''}…</p>
      ) : null}
      {view ? (
        <>
          <div className="rules-toolbar" role="search" aria-label="Filter the rules">
            <label>
              Search operations <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
            </label>
            <label className="check">
              <input type="checkbox" checked={everything} onChange={(e) => setEverything(e.target.checked)} /> Every operation (reads too)
            </label>
            <span className="muted" aria-live="polite">
              {rows.length} of {view.operations.length} operations
            </span>
          </div>
          <TableScroll label={`Rules for ${view.profile.name}`}>
            <table className="grid rules">
              <caption className="visually-hidden">Rules for {view.profile.name}: policy, grants, what is in effect and calls counted</caption>
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col">Policy</th>
                  <th scope="col">Grants</th>
                  <th scope="col">In effect</th>
                  <th scope="col">Calls</th>
                  <th scope="col">Last call</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((op) => (
                  <tr key={op.operationId} data-operation={op.operationId}>
                    <th scope="row">
                      <code>
                        {op.method} {op.path}
                      </code>
                      <span className="op-id">
                        {op.operationId}
                        {op.summary ? (
                          <span className="muted">
                            {' '}
                            — <InlineText text={op.summary} />
                          </span>
                        ) : null}
                      </span>
                    </th>
                    <td>
                      <select
                        aria-label={`Policy for ${op.operationId}`}
                        value={op.policySource === 'operation' ? op.policy : ''}
                        onChange={(e) => void setPolicy(op, e.target.value)}
                      >
                        <option value="">{op.mutation ? `profile's (${view.profile.policy})` : 'allowed (read)'}</option>
                        <option value="allow">allow</option>
                        <option value="ask">ask</option>
                        <option value="deny">deny</option>
                      </select>
                    </td>
                    <td>
                      {op.grantIds.length === 0 ? (
                        <span className="muted">none</span>
                      ) : (
                        <ul className="grant-lines">
                          {op.grantIds.map((id) => {
                            const g = grants.get(id);
                            return g ? <GrantLine key={id} grant={g} onRevoke={(x) => void revoke(x)} /> : null;
                          })}
                        </ul>
                      )}
                    </td>
                    <td>
                      <EffectiveBadge effective={op.effective} />
                    </td>
                    <td>
                      <Hits hits={op.hits} />
                    </td>
                    <td>{op.hits.lastAt ? when(op.hits.lastAt) : <span className="muted">never</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          {rows.length === 0 ? <p>No operation matches.</p> : null}
          {elsewhere.length > 0 ? (
            <section aria-labelledby="rules-elsewhere">
              <h2 id="rules-elsewhere">Grants for other APIs</h2>
              <ul className="grant-lines">
                {elsewhere.map((g) => (
                  <li key={g.id}>
                    <code>{grantLine(g)}</code> ({g.profile} · {g.operationId})
                    <ul className="grant-lines">
                      <GrantLine grant={g} onRevoke={(x) => void revoke(x)} />
                    </ul>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {view.grants.length > 0 ? (
            confirmRevokeAll ? (
              <div className="confirm-scope" role="group" aria-labelledby="revoke-all-text">
                <p id="revoke-all-text">
                  {view.grants.length === 1 ? 'Revoke the grant?' : `Revoke all ${view.grants.length} grants?`} Every held call asks a person again.
                </p>
                <div className="decisions">
                  <button type="button" onClick={() => setConfirmRevokeAll(false)}>
                    Cancel
                  </button>
                  <button type="button" className="danger" onClick={() => void revokeAll()}>
                    Yes, revoke all grants
                  </button>
                </div>
              </div>
            ) : (
              <button type="button" className="danger" onClick={() => setConfirmRevokeAll(true)}>
                Revoke all grants…
              </button>
            )
          ) : (
            <p className="hint">No grants: every held call asks. A grant is given from the approval prompt (“What Allow covers”).</p>
          )}
        </>
      ) : null}
    </div>
  );
}
