// The app shell: a nav landmark with one link per screen, the current screen
// in <main>, the pending-approval count in the nav, the tab title, a polite
// live region and (in Electron) the tray. A held call never takes the person
// away from what they were doing: its prompt floats over the current screen,
// which keeps its state (form input, filters, scroll). A screen opened anew
// starts at the top; Back returns to where it was (screenScroll.ts). The kill
// switch lives here (a button in the nav; a bar over every screen while it is
// on), and so does the banner that says the companion is not answering.
import { ErrorAlert } from '../components/Message.tsx';
import { InlineText } from '../components/InlineText.tsx';
import { Suspense, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useDrawerSpace } from './drawerSpace.ts';
import { SCREENS, screenFromHash, type ScreenId } from './routes.ts';
import { arrive, scrollToPlace } from './screenScroll.ts';
import { useApprovals } from '../api/useApprovals.ts';
import { useTheme } from './useTheme.ts';
import { requestTarget, type PendingApproval } from '../../../contract/approvals.ts';
import { bridge } from '../api/ipcControlApi.ts';
import { useConnection } from '../api/ControlProvider.tsx';
import { StatusProvider, useStatus } from '../api/StatusProvider.tsx';
import { KillSwitchBar, KillSwitchControl, type KillFocus } from './KillSwitch.tsx';
import { ConnectionBanner, CONNECTION_BANNER_ID } from './ConnectionBanner.tsx';
import { ScreenBoundary, retryableLazy } from './ScreenBoundary.tsx';
import { ApprovalsScreen, HeadItem } from '../features/approvals/ApprovalsScreen.tsx';
import { OverviewScreen } from '../features/overview/OverviewScreen.tsx';
import { SettingsScreen } from '../features/settings/SettingsScreen.tsx';
import { EngineScreen } from '../features/engine/EngineScreen.tsx';
import { ApisScreen } from '../features/apis/ApisScreen.tsx';
import { ServersScreen } from '../features/servers/ServersScreen.tsx';
import { ClientsScreen } from '../features/clients/ClientsScreen.tsx';
import { RulesScreen } from '../features/rules/RulesScreen.tsx';

// Heavy screens load on first visit: xterm.js and the virtualised table are not in the first bundle.
// A load that failed (the companion was not answering) is tried again on the next visit.
const activityScreen = retryableLazy(() => import('../features/activity/ActivityScreen.tsx'));
const logsScreen = retryableLazy(() => import('../features/logs/LogsScreen.tsx'));
// Fetched in the background once the first screen is up, so they open even if the companion stops later.
const PREFETCH_AFTER_MS = 3000;

/** Where a screen opens: at the top when opened anew, where it was when returned to (Back, Forward, a reload). */
interface Arrival {
  screen: ScreenId;
  /** Where to scroll; undefined: leave the page as it is (a new link within the same screen). */
  y: number | undefined;
}

function useScreen(): [ScreenId, (id: ScreenId) => void] {
  const [arrival, setArrival] = useState<Arrival>(() => ({ screen: screenFromHash(location.hash), y: arrive() }));
  useEffect(() => {
    const onHash = () => {
      const screen = screenFromHash(location.hash);
      const y = arrive();
      setArrival((was) => ({ screen, y: y ?? (screen === was.screen ? undefined : 0) }));
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useLayoutEffect(() => {
    if (arrival.y !== undefined) scrollToPlace(arrival.y);
  }, [arrival]);
  return [arrival.screen, (id) => (location.hash = `#/${id}`)];
}

export function App() {
  return (
    <StatusProvider>
      <Shell />
    </StatusProvider>
  );
}

/** The nav, the kill switch, the current screen and the approval drawer. */
function Shell() {
  const [screen, go] = useScreen();
  useTheme();
  useEffect(() => bridge()?.onNavigate?.((id) => go(screenFromHash(`#/${id}`))), [go]);
  const approvals = useApprovals();
  const status = useStatus();
  const connection = useConnection();
  const stale = connection.state !== 'ok';
  const [killFocus, setKillFocus] = useState<KillFocus>();
  useEffect(() => {
    const timer = setTimeout(() => {
      activityScreen.prefetch();
      logsScreen.prefetch();
    }, PREFETCH_AFTER_MS);
    return () => clearTimeout(timer);
  }, []);
  const count = approvals.pending.length;
  const [promptError, setPromptError] = useState<string | undefined>();
  const waiting = count > 0 ? `${count === 1 ? 'An approval is' : `${count} approvals are`} waiting` : '';
  useEffect(() => {
    document.title = count > 0 ? `(${count}) Airlock — ${waiting.toLowerCase()}` : 'Airlock';
  }, [count, waiting]);
  const head = approvals.pending[0];
  const drawerShown = head !== undefined && screen !== 'approvals';
  const ActivityScreen = activityScreen.get();
  const LogsScreen = logsScreen.get();
  return (
    <div className="shell">
      {/* The hash names the screen: following #main would open Overview. The link moves the focus, nothing else. */}
      <a
        className="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
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
        <KillSwitchControl status={status} focus={killFocus} setFocus={setKillFocus} />
      </nav>
      <div className="shell-body">
        <div className="shell-bars">
          <ConnectionBanner connection={connection} />
          <KillSwitchBar status={status} focus={killFocus} setFocus={setKillFocus} />
          {promptError && !drawerShown ? (
            // What became of an answer given in the drawer that is gone now (its call was no longer held).
            <div className="prompt-notice" role="alert">
              <InlineText text={promptError} />{' '}
              <button type="button" onClick={() => setPromptError(undefined)}>
                Dismiss
              </button>
            </div>
          ) : null}
        </div>
        <main id="main" tabIndex={-1} className={stale ? 'stale' : undefined} aria-describedby={stale ? CONNECTION_BANNER_ID : undefined}>
          <ScreenBoundary title={SCREENS.find((x) => x.id === screen)?.label ?? ''} resetKey={`${screen}:${connection.epoch}`} away={stale}>
            <Suspense fallback={<p role="status">Loading…</p>}>
              {screen === 'overview' && <OverviewScreen pending={count} status={status} />}
              {screen === 'approvals' && <ApprovalsScreen approvals={approvals} />}
              {screen === 'rules' && <RulesScreen />}
              {screen === 'activity' && <ActivityScreen />}
              {screen === 'logs' && <LogsScreen />}
              {screen === 'engine' && <EngineScreen />}
              {screen === 'apis' && <ApisScreen />}
              {screen === 'servers' && <ServersScreen />}
              {screen === 'clients' && <ClientsScreen />}
              {screen === 'settings' && <SettingsScreen />}
            </Suspense>
          </ScreenBoundary>
        </main>
      </div>
      <p className="visually-hidden" role="status" aria-live="polite">
        {waiting}
      </p>
      {head && drawerShown ? <ApprovalDrawer head={head} count={count} error={promptError} onError={setPromptError} onGone={approvals.resync} /> : null}
    </div>
  );
}

/**
 * The held call over the current screen. It can be folded to one line, to see the screen underneath
 * (Activity's detail, a long form); a new held call unfolds it again. Folding decides nothing.
 * It never covers the screen's own actions: the screen is laid out around it (drawerSpace.ts) — at the right
 * while it is open in a wide window, at the bottom when folded or docked along the bottom of a narrow one.
 */
function ApprovalDrawer({
  head,
  count,
  error,
  onError,
  onGone,
}: {
  head: PendingApproval;
  count: number;
  error: string | undefined;
  onError(message: string): void;
  onGone(): void;
}) {
  // Folded for this head call while no call is added to the queue: one more held call unfolds it (fewer do not).
  const [foldedAt, setFoldedAt] = useState<{ head: string; count: number } | undefined>();
  const folded = foldedAt !== undefined && foldedAt.head === head.id && count <= foldedAt.count;
  const r = head.request;
  const drawer = useRef<HTMLElement>(null);
  useDrawerSpace(drawer, folded);
  return (
    <aside ref={drawer} className={`approval-drawer${folded ? ' folded' : ''}`} aria-label="Held call">
      <ErrorAlert error={error} />
      {folded ? (
        <p className="drawer-folded">
          <strong>Action required · {count} held:</strong> <code>{requestTarget(r)}</code> from {r.caller.clientName ?? 'a client'}{' '}
          <button type="button" aria-expanded="false" onClick={() => setFoldedAt(undefined)}>
            Show the request
          </button>
        </p>
      ) : (
        <>
          <button type="button" className="drawer-fold" aria-expanded="true" onClick={() => setFoldedAt({ head: head.id, count })}>
            Fold to one line
          </button>
          <HeadItem key={head.id} head={head} count={count} onError={onError} onGone={onGone} />
        </>
      )}
    </aside>
  );
}
