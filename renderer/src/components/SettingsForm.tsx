// One form for settings, used by the Settings screen (all of them, by group)
// and the Engine screen (the caps). Each setting gets the control its
// declared type calls for — a number field with its limits and unit, a
// select of its choices, a switch, or text — and says whether a change
// applies now or after a restart, and where the value comes from (a flag or
// env var wins over what is saved here). A value is checked here with the
// same contract check the core applies (the limits come from the core's
// table), so an out-of-range value is refused with the allowed range before
// anything is sent, and nothing is saved.
import { useState, type KeyboardEvent } from 'react';
import { Switch } from 'radix-ui';
import {
  checkSettingValue,
  SETTING_GROUP_LABELS,
  SETTING_GROUPS,
  type SettingMeta,
  type SettingSource,
  type SettingValue,
} from '../../../contract/settings.ts';
import { useCall } from '../api/hooks.ts';
import { useControl } from '../api/ControlProvider.tsx';
import { rangeText, readable, shownValue } from './settingText.ts';
import './SettingsForm.css';

type Saved = { key: string; kind: 'status' | 'alert'; text: string };

interface FieldProps {
  meta: SettingMeta;
  /** What the running companion uses. */
  value: unknown;
  /** What settings.json holds, when a restart will change the value to it. */
  pending: unknown;
  source: SettingSource;
  saved: Saved | undefined;
  /** Sends a checked value; resolves to the server's refusal, if any. */
  onSave(value: SettingValue): Promise<string | undefined>;
}

const draftOf = (value: unknown) => (value === undefined || value === null ? '' : String(value));

function whereFrom(meta: SettingMeta, source: SettingSource, value: unknown, pending: unknown): string {
  if (source === 'flag') return `Set by ${meta.flag}, which wins over this screen until it is removed.`;
  if (source === 'env') return `Set by ${meta.env}, which wins over this screen until it is removed.`;
  if (!meta.persist) return `Set only at start, with ${meta.flag} or ${meta.env}.`;
  if (pending !== undefined) return `Saved as ${shownValue(meta, pending)}, which applies after a restart (running with ${shownValue(meta, value)}).`;
  return source === 'file' ? 'Saved in settings.json.' : 'Using the default.';
}

/** The table's descriptions mark commands and names with backticks (as the README and --help do): shown as code here. */
function withCode(text: string) {
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));
}

function defaultText(meta: SettingMeta): string | undefined {
  if (meta.defaultText) return meta.defaultText;
  if (meta.default === undefined) return undefined;
  return shownValue(meta, meta.default);
}

function Field({ meta, value, pending, source, saved, onSave }: FieldProps) {
  const id = `setting-${meta.key}`;
  // The value the control starts from: the saved one when it waits for a restart.
  const current = pending ?? value;
  const [draft, setDraft] = useState(draftOf(current));
  const [shown, setShown] = useState(current);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // A new value from the companion (after a save, or changed elsewhere) resets the draft.
  if (shown !== current) {
    setShown(current);
    setDraft(draftOf(current));
    setError(undefined);
  }
  const locked = source === 'flag' || source === 'env';
  const editable = meta.persist && !locked;
  const check = (raw: SettingValue) => checkSettingValue(meta, raw);
  const refusal = (message: string) => `${meta.label}: ${message}.`;

  const save = async (raw: SettingValue) => {
    const r = check(raw);
    if (!r.ok) {
      setError(refusal(r.message));
      return;
    }
    setError(undefined);
    setBusy(true);
    const failed = await onSave(r.value);
    setBusy(false);
    if (failed) setError(failed);
  };
  const onDraft = (next: string) => {
    setDraft(next);
    // Once refused, the message follows the typing so it clears as soon as the value is allowed.
    if (error) {
      const r = check(next);
      setError(r.ok ? undefined : refusal(r.message));
    }
  };
  const onEnter = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && editable && draft !== draftOf(current)) {
      e.preventDefault();
      void save(draft);
    }
  };

  const describedBy = [`${id}-applies`, `${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = {
    id,
    disabled: !editable || busy,
    'aria-describedby': describedBy,
    ...(error ? { 'aria-invalid': true as const, 'aria-errormessage': `${id}-error` } : {}),
  };
  const dirty = draft !== draftOf(current);
  const saveButton = editable ? (
    <button type="button" className="small" disabled={!dirty || busy} onClick={() => void save(draft)}>
      Save<span className="visually-hidden"> {meta.label}</span>
    </button>
  ) : null;

  let control;
  let allowed: string | undefined;
  switch (meta.type) {
    case 'boolean':
      control = (
        <span className="switch-row">
          <Switch.Root className="switch" {...common} checked={current === true} onCheckedChange={(on) => void save(on)}>
            <Switch.Thumb className="switch-thumb" />
          </Switch.Root>
          <span aria-hidden="true">{current === true ? 'On' : 'Off'}</span>
        </span>
      );
      break;
    case 'choice':
      control = (
        <>
          <select {...common} value={draft} onChange={(e) => onDraft(e.target.value)} onKeyDown={onEnter}>
            {draft === '' ? (
              <option value="" disabled>
                Default{meta.defaultText ? `: ${meta.defaultText}` : ''}
              </option>
            ) : null}
            {meta.choices.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
          {saveButton}
        </>
      );
      break;
    case 'text':
      allowed = meta.patternHint;
      control = (
        <>
          <input
            {...common}
            type={meta.format === 'url' ? 'url' : 'text'}
            className="text"
            value={draft}
            readOnly={!editable}
            placeholder={meta.defaultText ?? (meta.default !== undefined ? String(meta.default) : editable ? undefined : 'not set')}
            maxLength={meta.maxLength}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => onDraft(e.target.value)}
            onKeyDown={onEnter}
          />
          {saveButton}
        </>
      );
      break;
    default: {
      allowed = rangeText(meta);
      const n = /^-?\d+$/.test(draft.trim()) ? Number(draft) : undefined;
      const equivalent = n !== undefined ? readable(meta, n) : undefined;
      control = (
        <>
          <input
            {...common}
            type="number"
            className="number"
            inputMode="numeric"
            min={meta.min}
            max={meta.max}
            step={meta.step}
            value={draft}
            readOnly={!editable}
            onChange={(e) => onDraft(e.target.value)}
            onKeyDown={onEnter}
          />
          {meta.unit ? <span className="unit">{meta.unit}</span> : null}
          {equivalent ? <span className="equivalent">= {equivalent}</span> : null}
          {saveButton}
        </>
      );
    }
  }

  const dflt = defaultText(meta);
  return (
    <div className={`setting${locked ? ' locked' : ''}`} data-type={meta.type}>
      <div className="setting-name">
        <label htmlFor={id}>{meta.label}</label>
        <span id={`${id}-applies`} className={`applies ${meta.live ? 'live' : 'restart'}`}>
          {meta.persist ? (meta.live ? 'Applies now' : 'Applies after restart') : 'Start-up only'}
        </span>
        <code className="flag">{meta.flag}</code>
      </div>
      <div className="setting-value">
        <div className="control">{control}</div>
        <p id={`${id}-hint`} className="hint">
          {withCode(meta.description.charAt(0).toUpperCase() + meta.description.slice(1))}.{allowed ? ` Allowed: ${allowed}.` : ''}
          {dflt ? ` Default: ${dflt}.` : ''} {whereFrom(meta, source, value, pending)}
        </p>
        {error ? (
          <p id={`${id}-error`} className="error" role="alert">
            {error}
          </p>
        ) : saved ? (
          <p className={saved.kind === 'alert' ? 'warning' : 'saved'} role="status">
            {saved.text}
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** The saved value a restart will bring, when it differs from the running one and nothing overrides it. */
function pendingOf(meta: SettingMeta, value: unknown, saved: unknown, source: SettingSource | undefined): unknown {
  if (!meta.persist || meta.live || source === 'flag' || source === 'env' || saved === undefined || saved === value) return undefined;
  return saved;
}

export function SettingsForm({ keys, label }: { keys?: readonly string[]; label: string }) {
  const { api } = useControl();
  const view = useCall('settings.get', {});
  const [saved, setSaved] = useState<Saved>();
  const save = async (meta: SettingMeta, value: SettingValue): Promise<string | undefined> => {
    try {
      const r = await api.call('settings.update', { values: { [meta.key]: value } });
      const now = shownValue(meta, value);
      const overridden = r.restartRequired.find((x) => x.includes('overridden'));
      setSaved({
        key: meta.key,
        kind: overridden ? 'alert' : 'status',
        text: r.applied.includes(meta.key)
          ? `${meta.key} saved and applied: ${meta.label} is now ${now}.`
          : overridden
            ? `${meta.key} saved, but not in effect: ${overridden}.`
            : `${meta.key} saved: ${meta.label} becomes ${now} after a restart.`,
      });
      view.reload();
      return undefined;
    } catch (e) {
      setSaved(undefined);
      return `${meta.label}: ${(e as Error).message}`;
    }
  };
  const data = view.data;
  if (!data) return <p role="status">{view.error ? view.error.message : 'Loading…'}</p>;
  const shown = data.meta.filter((m) => !keys || keys.includes(m.key));
  const field = (m: SettingMeta) => (
    <Field
      key={m.key}
      meta={m}
      value={data.values[m.key]}
      pending={pendingOf(m, data.values[m.key], data.saved?.[m.key], data.sources[m.key])}
      source={data.sources[m.key] ?? 'default'}
      saved={saved?.key === m.key ? saved : undefined}
      onSave={(v) => save(m, v)}
    />
  );
  return (
    <form onSubmit={(e) => e.preventDefault()} className="settings" aria-label={label} noValidate>
      {keys
        ? shown.map(field)
        : SETTING_GROUPS.filter((g) => shown.some((m) => m.group === g)).map((g) => (
            <fieldset key={g} className="settings-group">
              <legend>{SETTING_GROUP_LABELS[g]}</legend>
              {shown.filter((m) => m.group === g).map(field)}
            </fieldset>
          ))}
    </form>
  );
}
