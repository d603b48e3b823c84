// The kill switch, whose one home is the shell: a "Kill switch" button in the
// navigation on every screen while execute runs (turning it on is a
// deliberate act: a dialog says what it does, Cancel has the focus), and a
// bar across the top of every screen while it is on, with the way back.
import { ErrorAlert } from '../components/Message.tsx';
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { Status } from '../../../contract/status.ts';
import type { CallState } from '../api/hooks.ts';
import { useControl } from '../api/ControlProvider.tsx';
import './shell.css';
import { messageOf } from '../../../contract/values.ts';

function useKillSwitch(status: CallState<Status>) {
  const { api } = useControl();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = async (on: boolean): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      const r = await api.call('settings.update', { values: { killSwitch: on } });
      if (r.restartRequired.length > 0) {
        setError(`The kill switch was not changed: ${r.restartRequired.join('; ')}`);
        return false;
      }
      return true;
    } catch (e) {
      setError(`The kill switch was not changed: ${messageOf(e)}`);
      return false;
    } finally {
      setBusy(false);
      status.reload();
    }
  };
  return { on: status.data?.killSwitch === true, known: status.data !== undefined, set, error, busy };
}

/** Which part of the kill switch takes the focus once it is on screen (after a change moved it away). */
export type KillFocus = 'control' | 'bar' | undefined;

interface Props {
  status: CallState<Status>;
  focus: KillFocus;
  setFocus(focus: KillFocus): void;
}

/** Moves the focus to this part once asked to (after a change moved it away), then forgets the request. */
function useFocusWhenAsked(ref: RefObject<HTMLElement | null>, part: KillFocus, focus: KillFocus, setFocus: (f: KillFocus) => void, on: boolean): void {
  useEffect(() => {
    if (focus === part && ref.current) {
      ref.current.focus();
      setFocus(undefined);
    }
  }, [focus, on, part, ref, setFocus]);
}

/** In the navigation: the way to stop every execute, always one Tab away. */
export function KillSwitchControl({ status, focus, setFocus }: Props) {
  const kill = useKillSwitch(status);
  const dialog = useRef<HTMLDialogElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  useFocusWhenAsked(trigger, 'control', focus, setFocus, kill.on);
  if (!kill.known) return null;
  if (kill.on) {
    return (
      <p className="kill-nav kill-nav-on">
        <span aria-hidden="true">■ </span>Execute stopped
      </p>
    );
  }
  return (
    <div className="kill-nav">
      <button ref={trigger} type="button" className="danger" aria-haspopup="dialog" onClick={() => dialog.current?.showModal()}>
        Kill switch
      </button>
      <KillError error={kill.error} />
      <dialog ref={dialog} className="kill-dialog" aria-labelledby="kill-dialog-title" aria-describedby="kill-dialog-text">
        <h2 id="kill-dialog-title">Stop all executes?</h2>
        <p id="kill-dialog-text">
          Every client's <code>execute</code> is refused, and runs in progress are stopped, until you turn execute back on. <code>search_docs</code> keeps
          working.
        </p>
        <div className="decisions">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            className="danger-solid"
            disabled={kill.busy}
            onClick={() =>
              void kill.set(true).then((ok) => {
                dialog.current?.close();
                if (ok) setFocus('bar');
                else trigger.current?.focus();
              })
            }
          >
            Stop all executes
          </button>
        </div>
      </dialog>
    </div>
  );
}

/** Across the top of every screen while the kill switch is on. */
export function KillSwitchBar({ status, focus, setFocus }: Props) {
  const kill = useKillSwitch(status);
  const bar = useRef<HTMLElement>(null);
  useFocusWhenAsked(bar, 'bar', focus, setFocus, kill.on);
  if (!kill.on) return null;
  return (
    <section ref={bar} className="kill-bar" aria-labelledby="kill-bar-title" tabIndex={-1}>
      <h2 id="kill-bar-title">Kill switch on: execute is stopped</h2>
      <p>
        Every client's <code>execute</code> is refused; <code>search_docs</code> still works.
      </p>
      <button type="button" className="primary" disabled={kill.busy} onClick={() => void kill.set(false).then((ok) => ok && setFocus('control'))}>
        Turn execute back on
      </button>
      <KillError error={kill.error} />
    </section>
  );
}

/** Why the kill switch did not change, next to the control that tried. */
function KillError({ error }: { error: string | undefined }) {
  return <ErrorAlert error={error} />;
}
