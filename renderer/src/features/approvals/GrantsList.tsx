// Saved grants — what an "Allow for …" answer left behind — with their scope
// in words (this client or every client × this session or until revoked),
// who gave each, when, how often and when it was last used (live: a use is a
// change), and Revoke / Revoke all. The Rules screen shows them beside the
// operation policies.
import type { Grant } from '../../../../contract/approvals.ts';
import { GRANT_SCOPE_INFO } from '../../../../contract/approvals.ts';
import { grantLine } from '../../../../contract/approvals.ts';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';

/** "this client, this session (claude-code)", "every client, until revoked". */
export function grantScopeText(g: Grant): string {
  const label = GRANT_SCOPE_INFO[g.scope].label;
  if (g.scope === 'session') return `${label} (${g.clientName ?? g.callerKey})`;
  if (g.scope === 'client-always') return g.clientTokenId ? `${label} (the token of ${g.clientName})` : `${label} (the name "${g.clientName}")`;
  return label;
}

export function GrantsList() {
  const { api } = useControl();
  const grants = useCall('grants.list', {}, { refreshOn: ['grants-changed', 'approval-decided'] });
  const list = grants.data ?? [];
  return (
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">Grants</h2>
      <p className="hint">
        What an “Allow for …” answer left behind. The <a href="#/rules">Rules</a> screen shows them beside each operation's policy, with what is in effect.
      </p>
      {list.length === 0 ? (
        <p>No grants: every held call asks.</p>
      ) : (
        <>
          <TableScroll label="Grants">
            <table className="grid">
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Given by</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((g) => (
                  <tr key={g.id}>
                    <td>
                      <code>{grantLine(g)}</code> <span className="muted">{g.operationId}</span>
                    </td>
                    <td>{grantScopeText(g)}</td>
                    <td>{g.grantedBy}</td>
                    <td>{new Date(g.createdAt).toLocaleString()}</td>
                    <td>{g.lastUsedAt ? `${new Date(g.lastUsedAt).toLocaleString()} (${g.uses}×)` : 'never'}</td>
                    <td>
                      <button type="button" onClick={() => void api.call('grants.revoke', { id: g.id }).then(grants.reload)}>
                        Revoke<span className="visually-hidden"> {g.operationId}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <button type="button" className="danger" onClick={() => void api.call('grants.revokeAll', {}).then(grants.reload)}>
            Revoke all
          </button>
        </>
      )}
    </section>
  );
}
