// The app shell: a nav landmark with one link per screen, the current screen
// in <main>, the pending-approval count in the nav, the tab title and (in
// Electron) the tray. Focus moves to the Approvals screen when the queue goes
// from empty to one, wherever the person is.
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { SCREENS, screenFromHash, type ScreenId } from './routes.ts';
import { useApprovals } from '../api/useApprovals.ts';
import { useCall } from '../api/hooks.ts';
import { bridge } from '../api/ipcControlApi.ts';
import { ApprovalsScreen } from '../features/approvals/ApprovalsScreen.tsx';
import { OverviewScreen } from '../features/overview/OverviewScreen.tsx';
import { SettingsScreen } from '../features/settings/SettingsScreen.tsx';
import { EngineScreen } from '../features/engine/EngineScreen.tsx';
import { ApisScreen } from '../features/apis/ApisScreen.tsx';
import { ClientsScreen } from '../features/clients/ClientsScreen.tsx';

// Heavy screens load on first visit: xterm.js and the virtualised table are not in the first bundle.
const ActivityScreen = lazy(() => import('../features/activity/ActivityScreen.tsx'));
const LogsScreen = lazy(() => import('../features/logs/LogsScreen.tsx'));

function useScreen(): [ScreenId, (id: ScreenId) => void] {
  const [screen, setScreen] = useState<ScreenId>(() => screenFromHash(location.hash));
  useEffect(() => {
    const onHash = () => setScreen(screenFromHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return [screen, (id) => (location.hash = `#/${id}`)];
}

/** The theme setting: system follows the OS (prefers-color-scheme); light and dark force it. */
function useTheme(): void {
  const settings = useCall('settings.get', {});
  const theme = settings.data?.values.theme;
  useEffect(() => {
    if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  }, [theme]);
}

export function App() {
  const [screen, go] = useScreen();
  useTheme();
  useEffect(() => bridge()?.onNavigate?.((id) => go(screenFromHash(`#/${id}`))), [go]);
  const approvals = useApprovals();
  const count = approvals.pending.length;
  const previous = useRef(0);
  useEffect(() => {
    document.title = count > 0 ? `(${count}) Airlock — ${count === 1 ? 'an approval is' : `${count} approvals are`} waiting` : 'Airlock';
    if (previous.current === 0 && count > 0 && screen !== 'approvals') go('approvals');
    previous.current = count;
  }, [count, screen, go]);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <nav aria-label="Airlock">
        <p className="brand" aria-hidden="true">
          Airlock
        </p>
        <ul>
          {SCREENS.map((s) => (
            <li key={s.id}>
              <a href={`#/${s.id}`} aria-current={s.id === screen ? 'page' : undefined}>
                {s.label}
                {s.id === 'approvals' && count > 0 ? (
                  <span className="badge" aria-label={`, ${count} waiting`}>
                    {count}
                  </span>
                ) : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p role="status">Loading…</p>}>
          {screen === 'overview' && <OverviewScreen pending={count} />}
          {screen === 'approvals' && <ApprovalsScreen approvals={approvals} />}
          {screen === 'activity' && <ActivityScreen />}
          {screen === 'logs' && <LogsScreen />}
          {screen === 'engine' && <EngineScreen />}
          {screen === 'apis' && <ApisScreen />}
          {screen === 'clients' && <ClientsScreen />}
          {screen === 'settings' && <SettingsScreen />}
        </Suspense>
      </main>
    </div>
  );
}
