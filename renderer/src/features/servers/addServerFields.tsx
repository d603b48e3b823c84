// The fields of the "Add a server" form (AddServer.tsx), one part for each
// way a server is given: the name (every mode), a command Airlock starts and
// what it is passed (its variables and the names of its secrets), a remote
// URL (the names of its headers, sign-in, private addresses), and the pasted
// entry. Each field is tied to its hint and its error (useAddServer.ts's
// `described`); the parts are components of their own, never made anew at
// each render, so a field keeps its element (and the focus) as one types.
import type { ReactNode } from 'react';
import type { AddField } from './serverForm.ts';
import { InlineText } from '../../components/InlineText.tsx';
import { idOf, type AddServerForm } from './useAddServer.ts';

/** A field's error line, found here or the core's refusal naming it; the field takes the focus and reads it. */
function FieldError({ form, field }: { form: AddServerForm; field: AddField }) {
  const { problems, refusal } = form;
  let error: ReactNode;
  if (problems[field]) error = problems[field];
  else if (refusal?.field === field)
    error = (
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
  return error !== undefined ? (
    <p id={`${idOf(field)}-error`} className="error field-error">
      {error}
    </p>
  ) : null;
}

/** One field: its label, its control (given `form.described(field, true)`), the hint that says what it takes, and its error. */
function Field(props: { form: AddServerForm; field: AddField; label: string; hint: ReactNode; children: ReactNode }) {
  const { form, field } = props;
  return (
    <div className="field">
      <label htmlFor={idOf(field)}>{props.label}</label>
      {props.children}
      <p id={`${idOf(field)}-hint`} className="hint">
        {props.hint}
      </p>
      <FieldError form={form} field={field} />
    </div>
  );
}

export function NameField({ form }: { form: AddServerForm }) {
  return (
    <Field
      form={form}
      field="name"
      label="Name"
      hint={
        <>
          Lowercase letters, digits, - and _ (at most 30). Scripts reach its tools as <code>mcp.{form.shownName}.&lt;tool&gt;(args)</code>.
        </>
      }
    >
      <input
        {...form.described('name', true)}
        className="add-name"
        value={form.draft.name}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => form.typeName(e.target.value)}
      />
    </Field>
  );
}

/** A command Airlock starts: the command, its arguments, and what it is passed from Airlock's environment and the key store. */
export function CommandFields({ form }: { form: AddServerForm }) {
  const { draft, edit } = form;
  return (
    <>
      <Field
        form={form}
        field="command"
        label="Command"
        hint={
          <>
            An absolute path, or a command found on PATH (<code>npx</code>, <code>uvx</code>, <code>docker</code>…). No shell runs it.
          </>
        }
      >
        <input
          {...form.described('command', true)}
          className="add-wide"
          value={draft.command}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => edit({ command: e.target.value }, 'command')}
        />
      </Field>
      <Field form={form} field="args" label="Arguments, one a line" hint="Each line is one argument, as it is (spaces and quotes included).">
        <textarea
          {...form.described('args', true)}
          className="add-wide"
          rows={3}
          value={draft.args}
          spellCheck={false}
          onChange={(e) => edit({ args: e.target.value }, 'args')}
        />
      </Field>
      <EnvironmentFields form={form} />
    </>
  );
}

/** What a started command is given: variables of Airlock's own environment, and the names of the ones set from the key store. */
function EnvironmentFields({ form }: { form: AddServerForm }) {
  const { draft, edit } = form;
  return (
    <>
      <Field
        form={form}
        field="env"
        label="Variables passed through"
        hint={
          <>
            Names of variables of Airlock&apos;s own environment it is given, separated by spaces or commas (<code>HOME LANG</code>). It gets no other (but
            PATH).
          </>
        }
      >
        <input
          {...form.described('env', true)}
          className="add-wide"
          value={draft.env}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => edit({ env: e.target.value }, 'env')}
        />
      </Field>
      <Field
        form={form}
        field="secrets"
        label="Secrets (names)"
        hint={
          <>
            Variables set from the key store when it starts (<code>GITHUB_TOKEN</code>). Only their names here: you set each value afterwards in a terminal with{' '}
            <code>airlock servers secret {form.shownName} VARIABLE</code>.
          </>
        }
      >
        <input
          {...form.described('secrets', true)}
          className="add-wide"
          value={draft.secrets}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => edit({ secrets: e.target.value }, 'secrets')}
        />
      </Field>
    </>
  );
}

/** A remote server: its URL, the names of the headers sent to it (or its OAuth sign-in), and whether it may be at a private address. */
export function UrlFields({ form }: { form: AddServerForm }) {
  const { draft, edit } = form;
  return (
    <>
      <Field form={form} field="url" label="URL" hint="Its MCP endpoint: Streamable HTTP, or legacy SSE when it does not speak it. Redirects are not followed.">
        <input
          {...form.described('url', true)}
          className="add-wide"
          type="url"
          inputMode="url"
          value={draft.url}
          spellCheck={false}
          autoComplete="off"
          placeholder="https://mcp.example.com/mcp"
          onChange={(e) => edit({ url: e.target.value }, 'url')}
        />
      </Field>
      <Field
        form={form}
        field="headers"
        label="Headers (names)"
        hint={
          <>
            Headers sent with every request (<code>Authorization</code>), their values from the key store: set each afterwards with{' '}
            <code>airlock servers secret {form.shownName} HEADER</code>. A server that signs in with OAuth needs none:{' '}
            <code>airlock servers login {form.shownName}</code>.
          </>
        }
      >
        <input
          {...form.described('headers', true)}
          className="add-wide"
          value={draft.headers}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => edit({ headers: e.target.value }, 'headers')}
        />
      </Field>
      <CheckField
        id="add-server-private"
        checked={draft.allowPrivateNetwork}
        onChange={(allowPrivateNetwork) => edit({ allowPrivateNetwork })}
        label="Allow private and local addresses"
        hint="For a server on this machine or your local network. Off, such addresses are refused; cloud metadata addresses always are."
      />
    </>
  );
}

/** One server's entry pasted from a client's configuration; a paste fills the name unless one was typed. */
export function JsonField({ form }: { form: AddServerForm }) {
  return (
    <Field
      form={form}
      field="json"
      label="The server's entry, as a client's configuration holds it"
      hint={
        <>
          One server: <code>{'{"command": …, "args": […], "env": {…}}'}</code>, <code>{'{"url": …, "headers": {…}}'}</code>, or a whole{' '}
          <code>{'{"mcpServers": {…}}'}</code> holding one. Values written in it (<code>env</code>, <code>headers</code>) go to the key store; the entry keeps
          only their names.
        </>
      }
    >
      <textarea
        {...form.described('json', true)}
        className="add-wide add-json"
        rows={8}
        value={form.draft.json}
        spellCheck={false}
        placeholder={'{\n  "command": "npx",\n  "args": ["-y", "@modelcontextprotocol/server-github"],\n  "env": { "GITHUB_TOKEN": "…" }\n}'}
        onChange={(e) => form.pasteJson(e.target.value)}
      />
    </Field>
  );
}

/** A checkbox with its label and the line that says what it does (read with it by a screen reader). */
export function CheckField(props: { id: string; checked: boolean; onChange(checked: boolean): void; label: string; hint: string }) {
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
