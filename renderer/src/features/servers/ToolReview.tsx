// One server's tools as a person reviews them (`servers.review`, which starts
// the server when it is not running): each tool with what it says it does,
// its description as the server wrote it (plain text, never markup), the
// person's policy for it and what a call to it gets now; the server's
// default; a search over names and descriptions; and, while its tools are
// held, what changed since they were accepted, as diffs, with "Accept these
// tools", which names the digest of exactly what is shown — a server that
// changes its tools between the look and the yes is refused by the core, and
// the review is read again. The search never hides what is accepted: every
// change stays listed.
import { useCallback, useDeferredValue, useEffect, useRef, useState } from 'react';
import type { ServerReview, ServerView } from '../../../../contract/servers.ts';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { DiffView } from '../../components/DiffView.tsx';
import { InlineText } from '../../components/InlineText.tsx';
import { Message, type ScreenMessage } from '../../components/Message.tsx';
import { KIND_WORDS, POLICY_WORDS, REVIEW_WORDS, printable, type ToolPolicy } from './serverWords.ts';
import { messageOf } from '../../../../contract/values.ts';
import { TableScroll } from '../../components/TableScroll.tsx';

type Loaded = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; review: ServerReview };

const POLICY_OPTIONS: { value: ToolPolicy; label: string }[] = [
  { value: 'allow', label: 'Allow' },
  { value: 'ask', label: 'Ask' },
  { value: 'deny', label: 'Deny' },
];

/** What a call to a tool gets (now, or once the tools are accepted: the column says which). */
function CallNow({ effective }: { effective: ToolPolicy }) {
  return <span className={`tool-call tool-call-${effective}`}>{POLICY_WORDS[effective]}</span>;
}

/**
 * `listed`: the server list as last read. When it changes and the server runs, an accepted review is read again
 * (a policy set elsewhere, tools that changed since): a review waiting for a yes stays as shown — its digest is
 * what an acceptance names.
 */
export function ToolReview({ server, listed }: { server: ServerView; listed: unknown }) {
  const { api } = useControl();
  const name = server.name;
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [reloading, setReloading] = useState(false);
  const [accepting, setAccepting] = useState(false);
  const [message, setMessage] = useState<ScreenMessage>();
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const generation = useRef(0);

  const load = useCallback(
    (quiet: boolean) => {
      const mine = ++generation.current;
      if (quiet) setReloading(true);
      else setLoaded({ kind: 'loading' });
      api.call('servers.review', { name }).then(
        (review) => {
          if (mine !== generation.current) return;
          setLoaded({ kind: 'ready', review });
          setReloading(false);
        },
        (error: unknown) => {
          if (mine !== generation.current) return;
          setLoaded({ kind: 'error', message: messageOf(error) });
          setReloading(false);
        },
      );
    },
    [api, name],
  );
  useEffect(() => load(false), [load]);

  const review = loaded.kind === 'ready' ? loaded.review : undefined;
  const running = server.state === 'connected';
  const settled = review?.state === 'accepted' || server.review === 'accepted';
  const first = useRef(listed);
  useEffect(() => {
    if (first.current === listed) return;
    first.current = listed;
    if (running && settled) load(true);
    // Only a new list reads it again; the rest is what that list said.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [listed]);

  /** An answer from the core that replaces the review shown (a policy set, tools accepted). */
  const show = (next: ServerReview) => {
    generation.current++;
    setReloading(false);
    setLoaded({ kind: 'ready', review: next });
  };

  const setPolicy = async (tool: string | undefined, value: string) => {
    const policy = value === '' ? null : (value as ToolPolicy);
    const what = tool ? `${name}'s tool ${tool}` : `${name}'s tools`;
    try {
      show(await api.call('servers.setPolicy', { name, ...(tool ? { tool } : {}), policy }));
      setMessage({ kind: 'status', text: `${what}: ${policy ?? 'back to the default'}, from the next call.` });
    } catch (error) {
      setMessage({ kind: 'alert', text: `${what}: ${messageOf(error)}` });
    }
  };

  const accept = async (shown: ServerReview) => {
    setAccepting(true);
    try {
      const next = await api.call('servers.accept', { name, digest: shown.digest });
      show(next);
      const n = shown.tools.length;
      setMessage({
        kind: 'status',
        text: `Accepted ${n} tool${n === 1 ? '' : 's'} of ${name}. Scripts reach them as mcp.${name}.<tool>(args); a change to them is held for review again.`,
      });
    } catch (error) {
      const changed = error instanceof ControlError && error.code === 'conflict';
      setMessage({ kind: 'alert', text: changed ? `${messageOf(error)}. Here they are as they are now: read them again.` : messageOf(error) });
      if (changed) load(false);
    } finally {
      setAccepting(false);
    }
  };

  if (loaded.kind === 'loading') {
    return (
      <div className="tool-review" aria-busy="true">
        <p role="status" className="review-progress">
          <span className="spinner" aria-hidden="true" />
          {running ? `Listing the tools of ${name}…` : `Starting ${name} and listing its tools…`}
        </p>
      </div>
    );
  }
  if (loaded.kind === 'error') {
    return (
      <div className="tool-review">
        <div role="alert" className="review-error">
          <p>
            <strong>The tools of {name} could not be listed.</strong>
          </p>
          <p className="review-error-text">
            <InlineText text={printable(loaded.message)} />
          </p>
        </div>
        <button type="button" onClick={() => load(false)}>
          Try again<span className="visually-hidden"> to list the tools of {name}</span>
        </button>
      </div>
    );
  }

  const r = loaded.review;
  const held = r.state !== 'accepted';
  const n = r.tools.length;
  const needle = deferred.trim().toLowerCase();
  const shown = needle ? r.tools.filter((t) => t.name.toLowerCase().includes(needle) || (t.description ?? '').toLowerCase().includes(needle)) : r.tools;
  const searchId = `tool-search-${name}`;
  const defaultId = `tool-default-${name}`;
  return (
    <div className="tool-review" aria-busy={reloading || accepting}>
      <h3>
        Its tools <span className="muted">({n})</span>: <span className={held ? 'held-text' : undefined}>{REVIEW_WORDS[r.state]}</span>
      </h3>
      {held ? (
        <p className="held-note">
          <strong>Nothing of {name} runs until you accept its tools.</strong>{' '}
          {r.state === 'changed'
            ? 'What changed since you accepted them is shown below: read it before you accept (a description rewritten into instructions is how a trusted server turns hostile).'
            : 'Read what each says it does and its description: accepting pins exactly these definitions, and a later change is held for review again.'}
        </p>
      ) : null}
      <Message message={message} />
      <div className="review-toolbar">
        <span className="review-field">
          <label htmlFor={defaultId}>Default for {name}'s tools</label>
          <select id={defaultId} value={server.defaultPolicy ?? ''} onChange={(e) => void setPolicy(undefined, e.target.value)}>
            <option value="">Default (read-only tools run, the others ask you)</option>
            {POLICY_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </span>
        <span className="review-field">
          <label htmlFor={searchId}>
            Search tools<span className="visually-hidden"> of {name}</span>
          </label>
          <input id={searchId} type="search" value={query} placeholder="name or description" onChange={(e) => setQuery(e.target.value)} />
        </span>
        <span className="muted" aria-live="polite">
          {needle ? `${shown.length} of ${n} tools shown` : ''}
        </span>
      </div>
      <TableScroll label={`Tools of ${name}`}>
        <table className="grid server-tools">
          <caption className="visually-hidden">Tools of {name}</caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">What it says it does</th>
              <th scope="col">Description</th>
              <th scope="col">Policy</th>
              {/* While the tools are held every call is refused (the note above says so): the column says what it will get. */}
              <th scope="col">{held ? 'Once you accept, a call' : 'A call now'}</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((t) => (
              <tr key={t.name} data-tool={t.name}>
                <th scope="row">
                  <code className="tool-name">{printable(t.name)}</code>
                </th>
                <td>
                  <span className={`tool-kind kind-${t.kind}`}>{KIND_WORDS[t.kind]}</span>
                </td>
                <td className="tool-description">{t.description ? printable(t.description) : <span className="muted">no description</span>}</td>
                <td>
                  <select aria-label={`Policy for ${t.name}`} value={t.policy ?? ''} onChange={(e) => void setPolicy(t.name, e.target.value)}>
                    <option value="">Default</option>
                    {POLICY_OPTIONS.map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="tool-now">
                  <CallNow effective={t.effective} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {shown.length === 0 ? (
        <p className="hint">
          No tool of {name} matches “{deferred.trim()}”.
        </p>
      ) : null}
      {held ? (
        <section className="review-changes" aria-labelledby={`changes-${name}`}>
          <h3 id={`changes-${name}`}>
            {r.state === 'changed' ? 'What changed since you accepted them' : 'Their definitions, as accepting pins them'}{' '}
            <span className="muted">({r.changes.length})</span>
          </h3>
          {r.changes.length > 0 ? (
            <ul className="change-list">
              {r.changes.map((c) => (
                <li key={`${c.change}:${c.tool}`}>
                  <details open={r.state === 'changed'}>
                    <summary>
                      <span className={`change-kind change-${c.change}`}>{c.change}</span> <code>{printable(c.tool)}</code>
                    </summary>
                    <DiffView diff={printable(c.diff)} label={`${c.change}: ${c.tool}`} />
                  </details>
                </li>
              ))}
            </ul>
          ) : null}
          <p className="accept-row">
            <button type="button" className="primary" disabled={accepting} onClick={() => void accept(r)}>
              Accept these tools<span className="visually-hidden"> of {name}</span>
            </button>{' '}
            <span className="hint">
              Accepts exactly the {n} definition{n === 1 ? '' : 's'} shown{needle ? ', whatever the search shows' : ''}; if {name} changed them meanwhile,
              nothing is accepted.
            </span>
          </p>
        </section>
      ) : null}
    </div>
  );
}
