// A wide table in a box of its own that scrolls sideways, so a narrow
// column (a small window, or beside the open approval drawer) never has a
// table running out of it. The box takes the keyboard focus (arrow keys
// scroll it) and is named for what it holds.
import type { ReactNode } from 'react';

export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="group" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
