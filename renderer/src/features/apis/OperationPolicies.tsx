// One served API's operations with the policy each gets: allow, ask or deny
// per operation, or the profile's own (mutations) / allowed (reads). A
// change applies to the next call and is saved with that API's profile.
// Beside it, what is in effect for the next call, grants included — the same
// words as the Rules screen (a grant that lets it through says so); the Rules
// view covers the primary API, so the column is there for that one only.
import { useDeferredValue, useState } from 'react';
import type { ProfileView } from '../../../../contract/profiles.ts';
import { useCall } from '../../api/hooks.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useRules } from '../rules/useRules.ts';
import { EffectiveBadge } from '../rules/ruleParts.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import { messageOf } from '../../../../contract/values.ts';
import { TableScroll } from '../../components/TableScroll.tsx';

const SHOWN = 200;

export function OperationPolicies({ profile }: { profile: ProfileView }) {
  const { api } = useControl();
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const operations = useCall(
    'profiles.operations',
    { name: profile.name, ...(deferred.trim() ? { query: deferred.trim() } : {}) },
    { refreshOn: ['rules-changed'] },
  );
  const rules = useRules();
  /** The Rules view speaks of one API (the primary): its "in effect" is shown for that one only. */
  const covered = rules.data?.profile.name === profile.name;
  const effective = new Map((covered ? rules.data!.operations : []).map((o) => [o.operationId, o.effective]));
  const [message, setMessage] = useState<ScreenMessage>();
  const set = async (operationId: string, value: string) => {
    try {
      const r = await api.call('profiles.setOperationPolicy', {
        operationId,
        policy: value === '' ? null : (value as 'allow' | 'ask' | 'deny'),
        profile: profile.name,
      });
      setMessage({
        kind: 'status',
        text: `In ${profile.name}, ${operationId}: ${r.operation.policySource === 'operation' ? r.operation.policy : `the profile's (${r.operation.policy})`}, from the next call${r.saved ? '' : ' (not saved: this profile came from --spec)'}.`,
      });
      operations.reload();
      rules.reload();
    } catch (error) {
      setMessage({ kind: 'alert', text: messageOf(error) });
    }
  };
  const list = operations.data ?? [];
  const searchId = `ops-search-${profile.name}`;
  return (
    <section aria-label={`Operations of ${profile.name}`}>
      <p className="hint">
        Reads are allowed unless you say otherwise; mutations follow the profile ({profile.readOnly ? 'read-only' : profile.policy}) unless you set their own.
        {covered ? (
          <>
            {' '}
            “In effect” counts the grants too: the <a href="#/rules">Rules</a> screen lists them, with the calls each rule let through, held or refused.
          </>
        ) : (
          <>
            {' '}
            Grants given on approval add to these: the <a href="#/rules">Rules</a> screen lists them.
          </>
        )}
      </p>
      <label htmlFor={searchId}>
        Search operations<span className="visually-hidden"> of {profile.name}</span>
      </label>{' '}
      <input id={searchId} type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
      <Message message={message} />
      {operations.error ? <p role="alert">{operations.error.message}</p> : null}
      <TableScroll label={`Operations of ${profile.name}`}>
        <table className="grid operations">
          <caption className="visually-hidden">Operations of {profile.name}</caption>
          <thead>
            <tr>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Operation</th>
              <th scope="col">Policy</th>
              {covered ? <th scope="col">In effect</th> : null}
            </tr>
          </thead>
          <tbody>
            {list.slice(0, SHOWN).map((op) => (
              <tr key={op.operationId}>
                <td>
                  <code>{op.method}</code>
                </td>
                <td>
                  <code>{op.path}</code>
                </td>
                <td>
                  {op.operationId}
                  {op.summary ? <span className="muted"> — {op.summary}</span> : null}
                  {op.deprecated ? <span className="tag">deprecated</span> : null}
                </td>
                <td>
                  <select
                    aria-label={`Policy for ${op.operationId} (${profile.name})`}
                    value={op.policySource === 'operation' ? op.policy : ''}
                    onChange={(e) => void set(op.operationId, e.target.value)}
                  >
                    <option value="">{op.mutation ? `profile's (${op.policySource === 'operation' ? profile.policy : op.policy})` : 'allowed (read)'}</option>
                    <option value="allow">allow</option>
                    <option value="ask">ask</option>
                    <option value="deny">deny</option>
                  </select>
                </td>
                {covered ? <td>{effective.get(op.operationId) ? <EffectiveBadge effective={effective.get(op.operationId)!} /> : null}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {list.length > SHOWN ? (
        <p className="hint">
          {SHOWN} of {list.length} shown: search to find the others.
        </p>
      ) : null}
    </section>
  );
}
