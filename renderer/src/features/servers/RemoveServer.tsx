// Removing a server from its card: never one click. "Remove…" opens an
// inline question that says what goes with it (its process, its secrets in
// the key store, its sign-in, the review of its tools); the focus moves to
// Cancel, Escape cancels and gives the focus back to "Remove…". The core's
// refusal is said in the question, which stays open.
import { ErrorAlert } from '../../components/Message.tsx';
import { useEffect, useRef, useState } from 'react';
import { messageOf } from '../../../../contract/values.ts';

/** `onRemove` resolves once the core removed it (the screen then moves the focus on), rejects with why not. */
export function RemoveServer({ name, secrets, onRemove }: { name: string; secrets: number; onRemove(): Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [error, setError] = useState<string>();
  const opener = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const questionId = `remove-question-${name}`;

  useEffect(() => {
    if (asking) cancelButton.current?.focus();
  }, [asking]);

  const cancel = () => {
    setAsking(false);
    setError(undefined);
    requestAnimationFrame(() => opener.current?.focus());
  };
  const remove = async () => {
    setRemoving(true);
    setError(undefined);
    try {
      await onRemove();
    } catch (e) {
      setError(messageOf(e));
      setRemoving(false);
    }
  };

  if (!asking) {
    return (
      <button type="button" ref={opener} className="small danger server-remove" onClick={() => setAsking(true)}>
        Remove…<span className="visually-hidden"> {name}</span>
      </button>
    );
  }
  return (
    <div
      role="group"
      aria-labelledby={questionId}
      className="remove-confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !removing) {
          e.preventDefault();
          e.stopPropagation();
          cancel();
        }
      }}
    >
      <p id={questionId}>
        <strong>
          Remove {name}
          {secrets > 0 ? ' and its secrets' : ''}?
        </strong>{' '}
        <span className="hint">
          Its process stops and its tools are no longer offered; {secrets > 0 ? 'its secrets in the key store, ' : ''}its sign-in and your review of its tools
          go with it.
        </span>
      </p>
      <ErrorAlert error={error} />
      <p className="remove-actions">
        <button type="button" ref={cancelButton} disabled={removing} onClick={cancel}>
          Cancel
        </button>
        <button type="button" className="danger" disabled={removing} onClick={() => void remove()}>
          Remove {name}
        </button>
        {removing ? (
          <span role="status" className="hint">
            Removing {name}…
          </span>
        ) : null}
      </p>
    </div>
  );
}
