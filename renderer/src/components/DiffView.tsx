// A unified diff as a person reads it: added lines green, removed lines red,
// the hunk headers muted, the file header apart. The + and - stay in the
// text, so the colour is never the only sign (and copying gives the diff).
import './DiffView.css';

type Kind = 'add' | 'del' | 'hunk' | 'meta' | 'same';

function kindOf(line: string): Kind {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('===') || line.startsWith('Index:') || line.startsWith('\\')) return 'meta';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'same';
}

export function DiffView({ diff, label = 'Diff' }: { diff: string; label?: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  const added = lines.filter((l) => kindOf(l) === 'add').length;
  const removed = lines.filter((l) => kindOf(l) === 'del').length;
  return (
    <pre className="diff diff-view" tabIndex={0} aria-label={`${label}: ${added} ${added === 1 ? 'line' : 'lines'} added, ${removed} removed`}>
      {lines.map((line, i) => (
        <span key={i} className={`diff-line ${kindOf(line)}`}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
