// One form for settings, grouped as the core's table groups them. Each
// setting gets the control its declared type calls for — a number field with
// its limits and unit, radio buttons (a few choices) or a select (more), a
// switch, or text — and says whether a change applies now or after a
// restart, and where the value comes from (a flag or env var wins over what
// is saved here). Changes are drafts until the one Save bar saves them all at
// once; each value is first checked with the same contract check the core
// applies (the limits come from the core's table), a refusal is shown next to
// its field, and then nothing is saved. Messages name settings by their
// label, never by their internal key. The kill switch is not here: it has
// one home, the control the app shell keeps in view.
import { useState, type FormEvent } from 'react';
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
import { InlineText } from './InlineText.tsx';
import './SettingsForm.css';
import { messageOf } from '../../../contract/values.ts';

/** Settings with their own home elsewhere in the app, never in this form. */
const ELSEWHERE: ReadonlySet<string> = new Set(['killSwitch']);
/** Up to this many choices are radio buttons (all visible at once); more are a select. */
const MAX_RADIOS = 3;

type Outcome = { kind: 'status' | 'alert'; text: string };

interface FieldProps {
  meta: SettingMeta;
  /** What the running companion uses. */
  value: unknown;
  /** What settings.json holds, when a restart will change the value to it. */
  pending: unknown;
  source: SettingSource;
  /** The control's text: the saved value, or the person's unsaved change. */
  draft: string;
  changed: boolean;
  error: string | undefined;
  disabled: boolean;
  onChange(next: string): void;
}

const draftOf = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Fixed by the organisation (a value it sets), as against one it only bounds (meta.limit), which the person still chooses within. */
const fixedByOrganisation = (meta: SettingMeta, source: SettingSource | undefined) => source === 'managed' && meta.limit === undefined;

function whereFrom(meta: SettingMeta, source: SettingSource, value: unknown, pending: unknown): string {
  if (fixedByOrganisation(meta, source)) return 'Set by your organisation (its managed policy): it cannot be changed here.';
  if (meta.limit !== undefined) {
    const bound = `Your organisation allows ${meta.limit} (its managed policy)`;
    return source === 'managed'
      ? `${bound}: the value was brought within that; choose another within it.`
      : `${bound}. ${whereFrom({ ...meta, limit: undefined } as SettingMeta, source, value, pending)}`;
  }
  if (source === 'flag') return `Set by ${meta.flag}, which wins over this screen until it is removed.`;
  if (source === 'env') return `Set by ${meta.env}, which wins over this screen until it is removed.`;
  if (!meta.persist) return `Set only at start, with ${meta.flag} or ${meta.env}.`;
  if (pending !== undefined) return `Saved as ${shownValue(meta, pending)}, which applies after a restart (running with ${shownValue(meta, value)}).`;
  return source === 'file' ? 'Saved in settings.json.' : 'Using the default.';
}

function defaultText(meta: SettingMeta): string | undefined {
  if (meta.defaultText) return meta.defaultText;
  if (meta.default === undefined) return undefined;
  return shownValue(meta, meta.default);
}

/** A refusal as the field shows it: "Timeout per run: 50 is out of range (expected 100–600000 ms)." */
const refusal = (meta: SettingMeta, message: string) => `${meta.label}: ${message.replace(/\.$/, '')}.`;

function Field({ meta, value, pending, source, draft, changed, error, disabled, onChange }: FieldProps) {
  const id = `setting-${meta.key}`;
  const locked = fixedByOrganisation(meta, source) || source === 'flag' || source === 'env';
  const editable = meta.persist && !locked;
  const describedBy = [`${id}-applies`, `${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const invalid = error ? { 'aria-invalid': true as const, 'aria-errormessage': `${id}-error` } : {};
  const common = { id, disabled: !editable || disabled, 'aria-describedby': describedBy, ...invalid };
  const radios = meta.type === 'choice' && meta.choices.length <= MAX_RADIOS;

  let control;
  let allowed: string | undefined;
  switch (meta.type) {
    case 'boolean': {
      const on = draft === 'true';
      control = (
        <span className="switch-row">
          <Switch.Root className="switch" {...common} checked={on} onCheckedChange={(next) => onChange(String(next))}>
            <Switch.Thumb className="switch-thumb" />
          </Switch.Root>
          <span aria-hidden="true">{on ? 'On' : 'Off'}</span>
        </span>
      );
      break;
    }
    case 'choice':
      control = radios ? (
        <div role="radiogroup" className="radios" aria-labelledby={`${id}-label`} aria-describedby={describedBy} {...invalid}>
          {meta.choices.map((c) => (
            <label key={c.value} className="radio">
              <input
                type="radio"
                name={id}
                id={`${id}-${c.value}`}
                value={c.value}
                checked={draft === c.value}
                disabled={!editable || disabled}
                onChange={() => onChange(c.value)}
              />{' '}
              {c.label}
            </label>
          ))}
          {draft === '' ? <span className="equivalent">Not set: {meta.defaultText ?? 'the default applies'}</span> : null}
        </div>
      ) : (
        <select {...common} value={draft} onChange={(e) => onChange(e.target.value)}>
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
      );
      break;
    case 'text':
      allowed = meta.patternHint;
      control = (
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
          onChange={(e) => onChange(e.target.value)}
        />
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
            onChange={(e) => onChange(e.target.value)}
          />
          {meta.unit ? <span className="unit">{meta.unit}</span> : null}
          {equivalent ? <span className="equivalent">= {equivalent}</span> : null}
        </>
      );
    }
  }

  const dflt = defaultText(meta);
  return (
    <div className={`setting${locked ? ' locked' : ''}${changed ? ' changed' : ''}`} data-type={meta.type}>
      <div className="setting-name">
        {radios ? (
          <span id={`${id}-label`} className="label">
            {meta.label}
          </span>
        ) : (
          <label id={`${id}-label`} htmlFor={id}>
            {meta.label}
          </label>
        )}
        <span id={`${id}-applies`} className={`applies ${meta.live ? 'live' : 'restart'}`}>
          {meta.persist ? (meta.live ? 'Applies now' : 'Applies after restart') : 'Start-up only'}
        </span>
        <code className="flag">{meta.flag}</code>
      </div>
      <div className="setting-value">
        <div className="control">
          {control}
          {changed ? <span className="unsaved">Not saved yet</span> : null}
        </div>
        <p id={`${id}-hint`} className="hint">
          <InlineText text={capitalised(meta.description)} />.{allowed ? ` Allowed: ${allowed}.` : ''}
          {dflt ? ` Default: ${dflt}.` : ''} {whereFrom(meta, source, value, pending)}
        </p>
        {error ? (
          <p id={`${id}-error`} className="error">
            <InlineText text={error} />
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** The saved value a restart will bring, when it differs from the running one and nothing overrides it. */
function pendingOf(meta: SettingMeta, value: unknown, saved: unknown, source: SettingSource | undefined): unknown {
  if (!meta.persist || meta.live || fixedByOrganisation(meta, source) || source === 'flag' || source === 'env' || saved === undefined || saved === value)
    return undefined;
  return saved;
}

/** "Timeout per run", "Timeout per run and Theme", "A, B and C". */
function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The core refuses a value as `settings: "timeoutMs": 50 is out of range …`: the setting it names (so the
 * refusal goes next to its field) and the message without the key.
 */
function refusedSetting(message: string, metas: SettingMeta[]): { meta: SettingMeta; message: string } | undefined {
  const m = /^[^"]*"([A-Za-z]+)"[:\s]*(.*)$/s.exec(message);
  const meta = m ? metas.find((x) => x.key === m[1]) : undefined;
  return meta && m ? { meta, message: m[2]! || 'refused' } : undefined;
}

export function SettingsForm({ keys, label }: { keys?: readonly string[]; label: string }) {
  const { api } = useControl();
  // Refreshed when a change takes effect, from here or from elsewhere (another window, the CLI).
  const view = useCall('settings.get', {}, { refreshOn: ['settings-applied'] });
  /** Unsaved changes, by key, as the controls hold them (text; 'true'/'false' for a switch). */
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);

  const data = view.data;
  if (!data) return <p role={view.error ? 'alert' : 'status'}>{view.error ? <InlineText text={view.error.message} /> : 'Loading…'}</p>;
  const shown = data.meta.filter((m) => !ELSEWHERE.has(m.key) && (!keys || keys.includes(m.key)));
  const sourceOf = (m: SettingMeta): SettingSource => data.sources[m.key] ?? 'default';
  const pendingFor = (m: SettingMeta) => pendingOf(m, data.values[m.key], data.saved?.[m.key], data.sources[m.key]);
  /** What the control shows when nothing is changed: the saved value when it waits for a restart, else the running one. */
  const baseline = (m: SettingMeta) => draftOf(pendingFor(m) ?? data.values[m.key]);
  const changedMetas = shown.filter((m) => drafts[m.key] !== undefined && drafts[m.key] !== baseline(m));

  const onChange = (m: SettingMeta, next: string) => {
    setDrafts((d) => ({ ...d, [m.key]: next }));
    setOutcome(undefined);
    // Once refused, the message follows the typing so it clears as soon as the value is allowed.
    if (errors[m.key]) {
      const r = checkSettingValue(m, next);
      setErrors((e) => {
        const { [m.key]: _gone, ...rest } = e;
        return r.ok ? rest : { ...rest, [m.key]: refusal(m, r.message) };
      });
    }
  };

  const discard = () => {
    setDrafts({});
    setErrors({});
    setOutcome(undefined);
  };

  const save = async (e?: FormEvent) => {
    e?.preventDefault();
    if (busy || changedMetas.length === 0) return;
    const values: Record<string, SettingValue> = {};
    const refused: Record<string, string> = {};
    for (const m of changedMetas) {
      const r = checkSettingValue(m, drafts[m.key]!);
      if (r.ok) values[m.key] = r.value;
      else refused[m.key] = refusal(m, r.message);
    }
    setErrors(refused);
    const wrong = Object.keys(refused);
    if (wrong.length > 0) {
      setOutcome({
        kind: 'alert',
        text: `Nothing was saved: ${wrong.length === 1 ? 'one value is' : `${wrong.length} values are`} not allowed (${listOf(changedMetas.filter((m) => refused[m.key]).map((m) => m.label))}).`,
      });
      // The first refused field takes the focus (a radio group: its checked radio).
      (document.getElementById(`setting-${wrong[0]}`) ?? document.getElementById(`setting-${wrong[0]}-${drafts[wrong[0]!]}`))?.focus();
      return;
    }
    setBusy(true);
    try {
      const r = await api.call('settings.update', { values });
      const now: string[] = [];
      const later: string[] = [];
      const overridden: string[] = [];
      for (const m of changedMetas) {
        const value = `${m.label} is ${shownValue(m, values[m.key])}`;
        const source = sourceOf(m);
        if (r.applied.includes(m.key)) now.push(value);
        else if (fixedByOrganisation(m, source)) overridden.push(`${m.label} (set by your organisation)`);
        else if (source === 'flag' || source === 'env') overridden.push(`${m.label} (${source === 'flag' ? m.flag : m.env} wins until it is removed)`);
        else later.push(value);
      }
      const parts = [
        now.length ? `in effect now: ${listOf(now)}` : '',
        later.length ? `after a restart: ${listOf(later)}` : '',
        overridden.length ? `saved but not in effect: ${listOf(overridden)}` : '',
      ].filter(Boolean);
      setOutcome({ kind: overridden.length ? 'alert' : 'status', text: `Saved. ${capitalised(parts.join('; '))}.` });
      setDrafts({});
      view.reload();
    } catch (error) {
      const message = messageOf(error);
      const named = refusedSetting(message, shown);
      if (named) setErrors({ [named.meta.key]: refusal(named.meta, named.message) });
      setOutcome({ kind: 'alert', text: named ? `Nothing was saved: ${named.meta.label} was refused.` : `Nothing was saved: ${message}` });
    } finally {
      setBusy(false);
    }
  };

  const field = (m: SettingMeta) => (
    <Field
      key={m.key}
      meta={m}
      value={data.values[m.key]}
      pending={pendingFor(m)}
      source={sourceOf(m)}
      draft={drafts[m.key] ?? baseline(m)}
      changed={changedMetas.includes(m)}
      error={errors[m.key]}
      disabled={busy}
      onChange={(next) => onChange(m, next)}
    />
  );
  const count = changedMetas.length;
  return (
    <form onSubmit={(e) => void save(e)} className="settings" aria-label={label} noValidate>
      {keys
        ? shown.map(field)
        : SETTING_GROUPS.filter((g) => shown.some((m) => m.group === g)).map((g) => (
            <fieldset key={g} className="settings-group">
              <legend>{SETTING_GROUP_LABELS[g]}</legend>
              {shown.filter((m) => m.group === g).map(field)}
            </fieldset>
          ))}
      <div className={`save-bar${count > 0 ? ' dirty' : ''}`} role="group" aria-label="Save settings">
        <p className="save-summary">
          {count === 0 ? 'No unsaved changes.' : `${count} unsaved ${count === 1 ? 'change' : 'changes'}: ${listOf(changedMetas.map((m) => m.label))}.`}
        </p>
        <p className="save-outcome" role="status">
          {outcome?.kind === 'status' ? <InlineText text={outcome.text} /> : null}
        </p>
        {outcome?.kind === 'alert' ? (
          <p className="save-outcome error" role="alert">
            <InlineText text={outcome.text} />
          </p>
        ) : null}
        <div className="save-actions">
          <button type="button" disabled={count === 0 || busy} onClick={discard}>
            Discard changes
          </button>
          <button type="submit" className="primary" disabled={count === 0 || busy}>
            {busy ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </div>
    </form>
  );
}
