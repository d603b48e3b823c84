// Add a server (`servers.add`): a command Airlock starts (its arguments one
// a line, the variables it is passed through and the names of its secrets),
// a remote URL (the names of its headers, whether private addresses are
// allowed), or one server's entry pasted from any client's configuration —
// whose inline values the core moves into the key store. A secret's value is
// never typed here. The core's refusal is shown by the field it names, the
// field takes the focus, and nothing typed is lost; switching modes keeps
// what each holds. Once added, the server is listed above (the screen moves
// the focus to it) and its tools wait for review.
import { useId, useRef, useState, type ReactNode } from 'react';
import type { ServerView } from '../../../../contract/servers.ts';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { InlineText } from '../../components/InlineText.tsx';
import { EMPTY_DRAFT, MODE_FIELDS, addInput, draftProblems, fieldOfError, suggestedName, type AddDraft, type AddField, type AddMode } from './serverForm.ts';
import { messageOf } from '../../../../contract/values.ts';

const MODES: { value: AddMode; label: string; hint: string }[] = [
  { value: 'command', label: 'Command', hint: 'Airlock starts it' },
  { value: 'url', label: 'Remote URL', hint: 'over HTTP' },
  { value: 'json', label: 'Paste JSON', hint: "from a client's config" },
];

interface Refusal {
  field: AddField | undefined;
  message: string;
  hint?: string;
}

/** `taken`: the names already behind Airlock. `onAdded`: the server as the core answered it, and how it was given. */
export function AddServer({ taken, onAdded }: { taken: readonly string[]; onAdded(view: ServerView, mode: AddMode): void }) {
  const { api } = useControl();
  const [draft, setDraft] = useState<AddDraft>(EMPTY_DRAFT);
  /** What stands in the way, each by its field: found here on Add, or the core's refusal. Editing a field clears its own. */
  const [problems, setProblems] = useState<Partial<Record<AddField, string>>>({});
  const [refusal, setRefusal] = useState<Refusal>();
  const [adding, setAdding] = useState(false);
  /** The name was filled from the pasted JSON (and not typed): a new paste may fill it again. */
  const nameFromJson = useRef(false);
  const fields = useRef<Partial<Record<AddField, HTMLInputElement | HTMLTextAreaElement | null>>>({});
  const uid = useId();
  const idOf = (f: AddField) => `add-server-${f}`;

  const edit = (change: Partial<AddDraft>, field?: AddField) => {
    setDraft((d) => ({ ...d, ...change }));
    if (field) {
      setProblems((p) => {
        const { [field]: _, ...rest } = p;
        return rest;
      });
      setRefusal((r) => (r && r.field === field ? undefined : r));
    }
  };

  const focusField = (field: AddField) => {
    // After React has drawn the error, so it is read with the field.
    requestAnimationFrame(() => fields.current[field]?.focus());
  };

  const submit = async () => {
    const local = draftProblems(draft, taken);
    const first = MODE_FIELDS[draft.mode].find((f) => local[f]);
    setRefusal(undefined);
    if (first) {
      setProblems(local);
      focusField(first);
      return;
    }
    setProblems({});
    setAdding(true);
    try {
      const view = await api.call('servers.add', addInput(draft));
      setDraft((d) => ({ ...EMPTY_DRAFT, mode: d.mode }));
      nameFromJson.current = false;
      onAdded(view, draft.mode);
    } catch (error) {
      const message = messageOf(error);
      const field = fieldOfError(draft.mode, message);
      setRefusal({ field, message, ...(error instanceof ControlError && error.hint ? { hint: error.hint } : {}) });
      if (field) focusField(field);
    } finally {
      setAdding(false);
    }
  };

  /** A field's error: found here, or the core's refusal naming it. */
  const errorOf = (f: AddField): ReactNode => {
    if (problems[f]) return problems[f];
    if (refusal?.field === f)
      return (
        <>
          <InlineText text={refusal.message} />
          {refusal.hint ? (
            <span className="refusal-hint">
              {' '}
              (<InlineText text={refusal.hint} />)
            </span>
          ) : null}
        </>
      );
    return undefined;
  };
  /** The props that tie a field to its hint and its error. */
  const described = (f: AddField, hint: boolean) => {
    const error = errorOf(f) !== undefined;
    const ids = [hint ? `${idOf(f)}-hint` : '', error ? `${idOf(f)}-error` : ''].filter(Boolean).join(' ');
    return {
      id: idOf(f),
      ref: (el: HTMLInputElement | HTMLTextAreaElement | null) => {
        fields.current[f] = el;
      },
      ...(ids ? { 'aria-describedby': ids } : {}),
      ...(error ? { 'aria-invalid': true as const, 'aria-errormessage': `${idOf(f)}-error` } : {}),
    };
  };
  /** A field's error line (a call, not a component, so it is not drawn anew at each key typed); the field takes the focus and reads it. */
  const errorLine = (f: AddField) => {
    const error = errorOf(f);
    return error !== undefined ? (
      <p id={`${idOf(f)}-error`} className="error field-error">
        {error}
      </p>
    ) : null;
  };

  const name = draft.name.trim() || 'NAME';
  return (
    <section className="card add-server" aria-labelledby="add-server">
      <h2 id="add-server" tabIndex={-1}>
        Add a server
      </h2>
      <form
        aria-label="Add a server"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (!adding) void submit();
        }}
      >
        <fieldset className="add-modes">
          <legend>How it is reached</legend>
          <div className="radios">
            {MODES.map((m) => (
              <label key={m.value} className="radio">
                <input
                  type="radio"
                  name={`${uid}-mode`}
                  value={m.value}
                  checked={draft.mode === m.value}
                  onChange={() => {
                    edit({ mode: m.value });
                    setProblems({});
                    setRefusal(undefined);
                  }}
                />
                {m.label} <span className="muted">({m.hint})</span>
              </label>
            ))}
          </div>
        </fieldset>

        <div className="field">
          <label htmlFor={idOf('name')}>Name</label>
          <input
            {...described('name', true)}
            className="add-name"
            value={draft.name}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => {
              nameFromJson.current = false;
              edit({ name: e.target.value }, 'name');
            }}
          />
          <p id={`${idOf('name')}-hint`} className="hint">
            Lowercase letters, digits, - and _ (at most 30). Scripts reach its tools as <code>mcp.{name}.&lt;tool&gt;(args)</code>.
          </p>
          {errorLine('name')}
        </div>

        {draft.mode === 'command' ? (
          <>
            <div className="field">
              <label htmlFor={idOf('command')}>Command</label>
              <input
                {...described('command', true)}
                className="add-wide"
                value={draft.command}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => edit({ command: e.target.value }, 'command')}
              />
              <p id={`${idOf('command')}-hint`} className="hint">
                An absolute path, or a command found on PATH (<code>npx</code>, <code>uvx</code>, <code>docker</code>…). No shell runs it.
              </p>
              {errorLine('command')}
            </div>
            <div className="field">
              <label htmlFor={idOf('args')}>Arguments, one a line</label>
              <textarea
                {...described('args', true)}
                className="add-wide"
                rows={3}
                value={draft.args}
                spellCheck={false}
                onChange={(e) => edit({ args: e.target.value }, 'args')}
              />
              <p id={`${idOf('args')}-hint`} className="hint">
                Each line is one argument, as it is (spaces and quotes included).
              </p>
              {errorLine('args')}
            </div>
            <div className="field">
              <label htmlFor={idOf('env')}>Variables passed through</label>
              <input
                {...described('env', true)}
                className="add-wide"
                value={draft.env}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => edit({ env: e.target.value }, 'env')}
              />
              <p id={`${idOf('env')}-hint`} className="hint">
                Names of variables of Airlock&apos;s own environment it is given, separated by spaces or commas (<code>HOME LANG</code>). It gets no other (but
                PATH).
              </p>
              {errorLine('env')}
            </div>
            <div className="field">
              <label htmlFor={idOf('secrets')}>Secrets (names)</label>
              <input
                {...described('secrets', true)}
                className="add-wide"
                value={draft.secrets}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => edit({ secrets: e.target.value }, 'secrets')}
              />
              <p id={`${idOf('secrets')}-hint`} className="hint">
                Variables set from the key store when it starts (<code>GITHUB_TOKEN</code>). Only their names here: you set each value afterwards in a terminal
                with <code>airlock servers secret {name} VARIABLE</code>.
              </p>
              {errorLine('secrets')}
            </div>
          </>
        ) : null}

        {draft.mode === 'url' ? (
          <>
            <div className="field">
              <label htmlFor={idOf('url')}>URL</label>
              <input
                {...described('url', true)}
                className="add-wide"
                type="url"
                inputMode="url"
                value={draft.url}
                spellCheck={false}
                autoComplete="off"
                placeholder="https://mcp.example.com/mcp"
                onChange={(e) => edit({ url: e.target.value }, 'url')}
              />
              <p id={`${idOf('url')}-hint`} className="hint">
                Its MCP endpoint: Streamable HTTP, or legacy SSE when it does not speak it. Redirects are not followed.
              </p>
              {errorLine('url')}
            </div>
            <div className="field">
              <label htmlFor={idOf('headers')}>Headers (names)</label>
              <input
                {...described('headers', true)}
                className="add-wide"
                value={draft.headers}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => edit({ headers: e.target.value }, 'headers')}
              />
              <p id={`${idOf('headers')}-hint`} className="hint">
                Headers sent with every request (<code>Authorization</code>), their values from the key store: set each afterwards with{' '}
                <code>airlock servers secret {name} HEADER</code>. A server that signs in with OAuth needs none: <code>airlock servers login {name}</code>.
              </p>
              {errorLine('headers')}
            </div>
            <CheckField
              id="add-server-private"
              checked={draft.allowPrivateNetwork}
              onChange={(allowPrivateNetwork) => edit({ allowPrivateNetwork })}
              label="Allow private and local addresses"
              hint="For a server on this machine or your local network. Off, such addresses are refused; cloud metadata addresses always are."
            />
          </>
        ) : null}

        {draft.mode === 'json' ? (
          <div className="field">
            <label htmlFor={idOf('json')}>The server&apos;s entry, as a client&apos;s configuration holds it</label>
            <textarea
              {...described('json', true)}
              className="add-wide add-json"
              rows={8}
              value={draft.json}
              spellCheck={false}
              placeholder={'{\n  "command": "npx",\n  "args": ["-y", "@modelcontextprotocol/server-github"],\n  "env": { "GITHUB_TOKEN": "…" }\n}'}
              onChange={(e) => {
                const json = e.target.value;
                const suggested = draft.name.trim() === '' || nameFromJson.current ? suggestedName(json) : undefined;
                if (suggested) nameFromJson.current = true;
                edit({ json, ...(suggested ? { name: suggested } : {}) }, 'json');
              }}
            />
            <p id={`${idOf('json')}-hint`} className="hint">
              One server: <code>{'{"command": …, "args": […], "env": {…}}'}</code>, <code>{'{"url": …, "headers": {…}}'}</code>, or a whole{' '}
              <code>{'{"mcpServers": {…}}'}</code> holding one. Values written in it (<code>env</code>, <code>headers</code>) go to the key store; the entry
              keeps only their names.
            </p>
            {errorLine('json')}
          </div>
        ) : null}

        {draft.mode !== 'json' ? (
          <CheckField
            id="add-server-autostart"
            checked={draft.autostart}
            onChange={(autostart) => edit({ autostart })}
            label="Start it with Airlock"
            hint="Off, it starts the first time a script or a client calls one of its tools."
          />
        ) : null}

        {refusal && refusal.field === undefined ? (
          <p className="error form-error" role="alert">
            Not added: <InlineText text={refusal.message} />
            {refusal.hint ? (
              <>
                {' '}
                (<InlineText text={refusal.hint} />)
              </>
            ) : null}
          </p>
        ) : null}
        <p className="add-actions">
          <button type="submit" className="primary" aria-disabled={adding || undefined}>
            Add server
          </button>{' '}
          {adding ? (
            <span role="status" className="hint">
              Adding {name}…
            </span>
          ) : (
            <span className="hint">
              {draft.autostart && draft.mode !== 'json'
                ? 'It starts with Airlock once you accept its tools; until then it runs only while you review them.'
                : 'It starts on first use; nothing of it runs until you accept its tools.'}
            </span>
          )}
        </p>
      </form>
    </section>
  );
}

/** A checkbox with its label and the line that says what it does (read with it by a screen reader). */
function CheckField(props: { id: string; checked: boolean; onChange(checked: boolean): void; label: string; hint: string }) {
  return (
    <div className="field">
      <label className="inline-check">
        <input type="checkbox" checked={props.checked} aria-describedby={`${props.id}-hint`} onChange={(e) => props.onChange(e.target.checked)} /> {props.label}
      </label>
      <p id={`${props.id}-hint`} className="hint">
        {props.hint}
      </p>
    </div>
  );
}
