// Small pieces the Rules screen and the APIs screen share, so both say the
// same thing about an operation: what is in effect, and its call counts.
import type { RuleHits, RuleOperation } from '../../../../contract/rules.ts';
import './rules.css';

export function EffectiveBadge({ effective }: { effective: RuleOperation['effective'] }) {
  return <span className={`effective effective-${effective.kind}`}>{effective.text}</span>;
}

export function Hits({ hits }: { hits: RuleHits }) {
  return (
    <span className="hits">
      {hits.allowed} allowed · {hits.asked} asked{hits.saidNo > 0 ? ` (${hits.saidNo} not let through)` : ''} · {hits.refused} refused
    </span>
  );
}

/** A time as a person reads it: the time alone today, the date and time before. */
export function when(iso: string): string {
  const d = new Date(iso);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
}
