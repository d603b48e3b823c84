// Settings: every setting (but the kill switch, which has its own control in
// the app shell), grouped, saved to settings.json from here with one Save
// bar unless a flag or env var sets it (live settings apply at once; the
// others after a restart, and the screen says which), and the MCP token's
// rotation.
import { useState } from 'react';
import { SettingsForm } from '../../components/SettingsForm.tsx';
import { useControl } from '../../api/ControlProvider.tsx';
import { useStatus } from '../../api/StatusProvider.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import { messageOf } from '../../../../contract/values.ts';
import { OrganisationNote } from '../../components/OrganisationNote.tsx';

function TokenRotation() {
  const { api } = useControl();
  const status = useStatus();
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<ScreenMessage>();
  const rotate = async () => {
    setConfirming(false);
    try {
      const r = await api.call('tokens.rotateMcp', {});
      setMessage({
        kind: 'status',
        text: `MCP token rotated: the new one is in ${r.file}; ${r.endedSessions} client session(s) ended. Clients that send the old token are refused until their configuration has the new one.`,
      });
    } catch (error) {
      setMessage({ kind: 'alert', text: messageOf(error) });
    }
  };
  return (
    <section className="card" aria-labelledby="token-title">
      <h2 id="token-title">MCP token</h2>
      <p>
        HTTP clients send this token with every request{status.data?.endpoints.http ? ` to ${status.data.endpoints.http}` : ''}. It is kept in{' '}
        <code>{status.data ? `${status.data.dataDir}/token` : '<data dir>/token'}</code> (readable by you only) and never shown here. Rotate it if it may have
        leaked; stdio clients need no token.
      </p>
      {confirming ? (
        <div role="group" aria-label="Confirm the rotation">
          <p className="warning">Clients that use the current token stop working until their configuration has the new one. Rotate now?</p>
          <button type="button" className="danger" onClick={() => void rotate()}>
            Rotate now
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)} autoFocus>
            Keep the current token
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Rotate MCP token…
        </button>
      )}
      <Message message={message} />
    </section>
  );
}

export function SettingsScreen() {
  return (
    <div className="screen">
      <h1>Settings</h1>
      <OrganisationNote area="settings" />
      <TokenRotation />
      <h2 id="settings-title">All settings</h2>
      <p className="hint">
        Change what you need, then save once with <strong>Save changes</strong> at the bottom: every value is checked against its limits first, and nothing is
        saved while one is refused. <strong>Applies now</strong> settings take effect at once (the theme, the caps on each run); the others when Airlock
        restarts. A flag or environment variable wins over what is saved here; <strong>start-up only</strong> settings are set with their flag or environment
        variable. The kill switch is not here: it has its own control, always in view.
      </p>
      <SettingsForm label="Settings" />
    </div>
  );
}
