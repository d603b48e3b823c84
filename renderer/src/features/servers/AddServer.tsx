// Add a server (`servers.add`): a command Airlock starts (its arguments one
// a line, the variables it is passed through and the names of its secrets),
// a remote URL (the names of its headers, whether private addresses are
// allowed), or one server's entry pasted from any client's configuration —
// whose inline values the core moves into the key store. A secret's value is
// never typed here. The core's refusal is shown by the field it names, the
// field takes the focus, and nothing typed is lost; switching modes keeps
// what each holds. Once added, the server is listed above (the screen moves
// the focus to it) and its tools wait for review. The form's state and its
// submission are useAddServer.ts's; the fields of each mode are in
// addServerFields.tsx.
import { useId } from 'react';
import type { ServerView } from '../../../../contract/servers.ts';
import { InlineText } from '../../components/InlineText.tsx';
import type { AddMode } from './serverForm.ts';
import { useAddServer, type AddServerForm } from './useAddServer.ts';
import { CheckField, CommandFields, JsonField, NameField, UrlFields } from './addServerFields.tsx';

const MODES: { value: AddMode; label: string; hint: string }[] = [
  { value: 'command', label: 'Command', hint: 'Airlock starts it' },
  { value: 'url', label: 'Remote URL', hint: 'over HTTP' },
  { value: 'json', label: 'Paste JSON', hint: "from a client's config" },
];

/** `taken`: the names already behind Airlock. `onAdded`: the server as the core answered it, and how it was given. */
export function AddServer({ taken, onAdded }: { taken: readonly string[]; onAdded(view: ServerView, mode: AddMode): void }) {
  const form = useAddServer(taken, onAdded);
  const uid = useId();
  const { draft } = form;
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
          if (!form.adding) void form.submit();
        }}
      >
        <ModePicker form={form} radioName={`${uid}-mode`} />
        <NameField form={form} />
        {draft.mode === 'command' ? <CommandFields form={form} /> : null}
        {draft.mode === 'url' ? <UrlFields form={form} /> : null}
        {draft.mode === 'json' ? <JsonField form={form} /> : null}
        {draft.mode !== 'json' ? (
          <CheckField
            id="add-server-autostart"
            checked={draft.autostart}
            onChange={(autostart) => form.edit({ autostart })}
            label="Start it with Airlock"
            hint="Off, it starts the first time a script or a client calls one of its tools."
          />
        ) : null}
        <FormRefusal form={form} />
        <AddActions form={form} />
      </form>
    </section>
  );
}

/** How the server is reached: one radio a mode; choosing one clears the errors shown (what was typed stays). */
function ModePicker({ form, radioName }: { form: AddServerForm; radioName: string }) {
  return (
    <fieldset className="add-modes">
      <legend>How it is reached</legend>
      <div className="radios">
        {MODES.map((m) => (
          <label key={m.value} className="radio">
            <input type="radio" name={radioName} value={m.value} checked={form.draft.mode === m.value} onChange={() => form.chooseMode(m.value)} />
            {m.label} <span className="muted">({m.hint})</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The core's refusal when it names no field: said by the button, at once. */
function FormRefusal({ form }: { form: AddServerForm }) {
  const { refusal } = form;
  return refusal && refusal.field === undefined ? (
    <p className="error form-error" role="alert">
      Not added: <InlineText text={refusal.message} />
      {refusal.hint ? (
        <>
          {' '}
          (<InlineText text={refusal.hint} />)
        </>
      ) : null}
    </p>
  ) : null;
}

/** The Add button, and beside it what is happening or what adding will do. */
function AddActions({ form }: { form: AddServerForm }) {
  const { adding, draft } = form;
  return (
    <p className="add-actions">
      <button type="submit" className="primary" aria-disabled={adding || undefined}>
        Add server
      </button>{' '}
      {adding ? (
        <span role="status" className="hint">
          Adding {form.shownName}…
        </span>
      ) : (
        <span className="hint">
          {draft.autostart && draft.mode !== 'json'
            ? 'It starts with Airlock once you accept its tools; until then it runs only while you review them.'
            : 'It starts on first use; nothing of it runs until you accept its tools.'}
        </span>
      )}
    </p>
  );
}
