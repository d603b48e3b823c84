// Shows the app once the ControlApi answers; when the web UI has no session
// yet (or the link was stale), says how to get in instead of failing quietly.
import { useEffect, useState, type ReactNode } from 'react';
import { ControlError } from '../../../contract/controlApi.ts';
import { useControl } from '../api/ControlProvider.tsx';

export function SignInGate({ children, loginFailed }: { children: ReactNode; loginFailed: boolean }) {
  const { api } = useControl();
  const [state, setState] = useState<'checking' | 'ok' | 'signed-out' | 'down'>('checking');
  useEffect(() => {
    api.call('status', {}).then(
      () => setState('ok'),
      (e: unknown) => setState(e instanceof ControlError && e.code === 'unauthorized' ? 'signed-out' : 'down'),
    );
  }, [api]);
  if (state === 'ok') return <>{children}</>;
  return (
    <main className="signin" id="main">
      <h1>Airlock</h1>
      {state === 'checking' ? <p role="status">Connecting…</p> : null}
      {state === 'signed-out' ? (
        <div role="alert">
          <p>{loginFailed ? 'That login link was used already or has expired.' : 'This browser is not signed in to Airlock.'}</p>
          <p>
            Run <code>airlock open</code> in a terminal for a new one-time link (or <code>airlock open --print</code> to copy it).
          </p>
        </div>
      ) : null}
      {state === 'down' ? (
        <p role="alert">
          Airlock is not answering. Start it with <code>airlock serve --ui</code>, then run <code>airlock open</code>.
        </p>
      ) : null}
    </main>
  );
}
