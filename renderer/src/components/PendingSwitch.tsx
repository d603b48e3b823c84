// An on/off switch whose change goes to the core: while the answer is on its
// way it shows the wanted state, is marked busy and takes no second change
// (so a quick double press never sends two), and its label names what it
// switches for a screen reader ("Serve demo", "Enabled github").
import { Switch } from 'radix-ui';
import './PendingSwitch.css';

export interface PendingSwitchProps {
  id: string;
  /** What it is called on screen ("Serve", "Enabled"), and the name a screen reader hears after it. */
  label: string;
  name: string;
  /** The state the core reports. */
  on: boolean;
  /** The state asked for and not answered yet, if any. */
  wanted: boolean | undefined;
  /** The element that says what the state means. */
  describedBy: string;
  onChange(on: boolean): void;
}

export function PendingSwitch(p: PendingSwitchProps) {
  return (
    <span className="pending-switch">
      <Switch.Root
        id={p.id}
        className="switch pending-switch-control"
        checked={p.wanted ?? p.on}
        aria-describedby={p.describedBy}
        {...(p.wanted !== undefined ? { 'aria-busy': true } : {})}
        onCheckedChange={(next) => {
          if (p.wanted === undefined) p.onChange(next);
        }}
      >
        <Switch.Thumb className="switch-thumb" />
      </Switch.Root>
      <label htmlFor={p.id}>
        {p.label}
        <span className="visually-hidden"> {p.name}</span>
      </label>
    </span>
  );
}
