// Saved grants — what "Allow for this session" and "Always allow this
// operation" left behind — with who gave each, when, when it was last used,
// and Revoke / Revoke all.
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';

export function GrantsList() {
  const { api } = useControl();
  const grants = useCall('grants.list', {}, { refreshOn: ['grants-changed', 'approval-decided'] });
  const list = grants.data ?? [];
  return (
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">Grants</h2>
      {list.length === 0 ? (
        <p>No grants: every held call asks.</p>
      ) : (
        <>
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
                    <code>
                      {g.method} {g.pathTemplate}
                    </code>{' '}
                    <span className="muted">{g.operationId}</span>
                  </td>
                  <td>{g.scope === 'always' ? 'always (every client)' : `this session (${g.clientName ?? g.callerKey})`}</td>
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
          <button type="button" className="danger" onClick={() => void api.call('grants.revokeAll', {}).then(grants.reload)}>
            Revoke all
          </button>
        </>
      )}
    </section>
  );
}
