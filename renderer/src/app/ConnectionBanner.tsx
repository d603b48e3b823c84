// One banner on every screen while the companion does not answer: what
// happened, that what is on screen is from before, and what to do (the exact
// command that starts it again). It goes away by itself when the companion
// answers. The live region is always in the page, so its text is announced.
import type { Connection } from '../api/ControlProvider.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import './shell.css';

export const CONNECTION_BANNER_ID = 'connection-banner';

/** `airlock open` for the same data dir as the companion's start command. */
export function openCommand(startCommand: string | undefined): string {
  const dataDir = startCommand ? /\s(--data-dir(?:=|\s+)(?:'[^']*'|\S+))/.exec(startCommand)?.[1] : undefined;
  return dataDir ? `airlock open ${dataDir}` : 'airlock open';
}

function time(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toLocaleTimeString();
}

export function ConnectionBanner({ connection }: { connection: Connection }) {
  const since = time(connection.lastAnswerAt);
  const asOf = since ? `What you see was last updated at ${since} and may be out of date.` : 'What you see may be out of date.';
  const start = connection.startCommand ?? 'airlock serve --ui';
  const open = openCommand(connection.startCommand);
  return (
    <div role="status" aria-live="polite" className="connection-slot">
      {connection.state === 'down' ? (
        <div id={CONNECTION_BANNER_ID} className="connection-banner">
          <p>
            <strong>Airlock is not answering.</strong> It was stopped, or is restarting. {asOf} Changes made now are not saved.
          </p>
          <p>
            Start it again with <code>{start}</code> <CopyButton text={start} label="Copy the start command" />
          </p>
          <p className="hint">This page notices by itself when Airlock is back.</p>
        </div>
      ) : null}
      {connection.state === 'signed-out' ? (
        <div id={CONNECTION_BANNER_ID} className="connection-banner">
          <p>
            <strong>Airlock is running, but this page is no longer signed in</strong> (sign-ins end when Airlock restarts). {asOf}
          </p>
          <p>
            Run <code>{open}</code> for a new sign-in link <CopyButton text={open} label="Copy the sign-in command" />
          </p>
        </div>
      ) : null}
    </div>
  );
}
