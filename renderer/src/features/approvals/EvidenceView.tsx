// The evidence beside a held PATCH, PUT or DELETE: what the request changes in
// the resource as it is now (field, now, after), the title of what a DELETE
// removes, or why the current state could not be shown. Airlock read it for
// the person; the model's code never sees it.
import type { ApprovalEvidence } from '../../../../contract/evidence.ts';
import './RequestDetails.css';

export function evidenceTerm(evidence: ApprovalEvidence): string {
  if (evidence.kind === 'change') return 'What changes';
  if (evidence.kind === 'delete') return 'Deletes';
  return 'Current state';
}

export function EvidenceView({ evidence }: { evidence: ApprovalEvidence }) {
  const from = evidence.source ? <span className="muted"> (read just now with {evidence.source})</span> : null;
  if (evidence.kind === 'delete') {
    return (
      <div className="evidence evidence-delete">
        {evidence.title ? <strong className="deleted-title">{evidence.title}</strong> : null}
        {evidence.note ? <p className="evidence-note">{evidence.note}</p> : null}
        <p className="evidence-source">{from}</p>
      </div>
    );
  }
  if (evidence.kind === 'none') {
    return (
      <div className="evidence evidence-none">
        <p className="evidence-note">Not shown: {evidence.note ?? 'the current state could not be read.'}</p>
      </div>
    );
  }
  const changes = evidence.changes ?? [];
  return (
    <div className="evidence evidence-change">
      {changes.length > 0 ? (
        <table className="changes">
          <caption className="visually-hidden">Fields this request changes, as they are now and after it</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Now</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.field}>
                <th scope="row">
                  <code>{c.field}</code>
                </th>
                <td className="before">{c.before === undefined ? <span className="muted">(not set)</span> : <code>{c.before}</code>}</td>
                <td className="after">{c.after === undefined ? <span className="muted">(removed)</span> : <code>{c.after}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {evidence.note ? <p className="evidence-note">{evidence.note}</p> : null}
      <p className="evidence-source">{from}</p>
    </div>
  );
}
