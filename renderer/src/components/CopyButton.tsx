// Copies a value to the clipboard and says so (politely, to screen readers too).
import { useState } from 'react';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <>
      <button
        type="button"
        className="small"
        onClick={() =>
          void navigator.clipboard?.writeText(text).then(() => {
            setDone(true);
            setTimeout(() => setDone(false), 1500);
          })
        }
      >
        {label}
      </button>
      <span role="status" className="visually-hidden">
        {done ? 'Copied' : ''}
      </span>
    </>
  );
}
