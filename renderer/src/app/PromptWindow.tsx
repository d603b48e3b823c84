// The page of the desktop app's small prompt window (#/prompt): only the
// oldest held call — the same prompt as the drawer and the Approvals screen,
// with its guard time and keyboard — and how many more wait. No navigation:
// the full app is one click on the tray away.
import { ErrorAlert } from '../components/Message.tsx';
import { useEffect, useState } from 'react';
import { useApprovals } from '../api/useApprovals.ts';
import { HeadItem } from '../features/approvals/ApprovalsScreen.tsx';
import { useTheme } from './useTheme.ts';
import './PromptWindow.css';

export const PROMPT_HASH = '#/prompt';

export function PromptWindow() {
  useTheme();
  const approvals = useApprovals();
  const [error, setError] = useState<string | undefined>();
  const head = approvals.pending[0];
  const count = approvals.pending.length;
  useEffect(() => {
    document.title = head ? `Action required — Airlock${count > 1 ? ` (${count})` : ''}` : 'Airlock';
  }, [head, count]);
  return (
    <main id="main" className="prompt-window">
      {/* The page's own heading, for a screen reader's outline; the prompt's title is the h2 under it. */}
      <h1 className="visually-hidden">Airlock: held calls</h1>
      <ErrorAlert error={error} />
      {head ? (
        <HeadItem key={head.id} head={head} count={count} onError={setError} onGone={approvals.resync} />
      ) : (
        <p role="status">{approvals.loaded ? 'Nothing waits for you. This window closes by itself.' : 'Loading…'}</p>
      )}
    </main>
  );
}
