// One form for settings, used by the Settings screen (all of them) and the
// Engine screen (the caps): each setting with its value, where the value
// comes from (a flag or env var wins over what is saved here) and a control
// within its limits. Live settings apply to the next run; the message says
// when a restart is needed instead.
import { useState } from 'react';
import type { SettingMeta } from '../../../contract/settings.ts';
import { useCall } from '../api/hooks.ts';
import { useControl } from '../api/ControlProvider.tsx';

function Field({ meta, value, source, onSave }: { meta: SettingMeta; value: unknown; source: string; onSave(v: string | number | boolean): void }) {
  const [draft, setDraft] = useState(String(value ?? ''));
  const id = `setting-${meta.key}`;
  const locked = source === 'flag' || source === 'env';
  const hint = `${meta.description}${locked ? ` — set by ${source === 'flag' ? meta.flag : meta.env}, which wins over this screen` : ''}`;
  if (meta.type === 'boolean') {
    return (
      <div className="field">
        <label htmlFor={id}>
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            disabled={locked || !meta.persist}
            onChange={(e) => onSave(e.target.checked)}
            aria-describedby={`${id}-hint`}
          />{' '}
          {meta.label}
        </label>
        <p id={`${id}-hint`} className="hint">
          {hint} ({source})
        </p>
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{meta.label}</label>
      {meta.choices ? (
        <select id={id} value={draft} disabled={locked || !meta.persist} onChange={(e) => setDraft(e.target.value)} aria-describedby={`${id}-hint`}>
          {meta.choices.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={meta.type === 'number' ? 'number' : 'text'}
          min={meta.min}
          max={meta.max}
          value={draft}
          disabled={locked || !meta.persist}
          onChange={(e) => setDraft(e.target.value)}
          aria-describedby={`${id}-hint`}
        />
      )}
      {meta.persist && !locked ? (
        <button type="button" className="small" disabled={draft === String(value ?? '')} onClick={() => onSave(meta.type === 'number' ? Number(draft) : draft)}>
          Save<span className="visually-hidden"> {meta.label}</span>
        </button>
      ) : null}
      <p id={`${id}-hint`} className="hint">
        {hint} ({source}
        {meta.unit ? `, ${meta.unit}` : ''})
      </p>
    </div>
  );
}

export function SettingsForm({ keys, label }: { keys?: readonly string[]; label: string }) {
  const { api } = useControl();
  const view = useCall('settings.get', {});
  const [message, setMessage] = useState<{ kind: 'status' | 'alert'; text: string }>();
  const save = async (key: string, value: string | number | boolean) => {
    try {
      const r = await api.call('settings.update', { values: { [key]: value } });
      setMessage({
        kind: 'status',
        text:
          r.applied.length > 0
            ? `${key} saved and applied.`
            : `${key} saved; it takes effect after a restart${r.restartRequired[0]?.includes('overridden') ? ` (${r.restartRequired[0]})` : ''}.`,
      });
      view.reload();
    } catch (e) {
      setMessage({ kind: 'alert', text: (e as Error).message });
    }
  };
  const data = view.data;
  const shown = data ? data.meta.filter((m) => !keys || keys.includes(m.key)) : [];
  return (
    <>
      {message ? <p role={message.kind}>{message.text}</p> : null}
      {!data ? (
        <p role="status">{view.error ? view.error.message : 'Loading…'}</p>
      ) : (
        <form onSubmit={(e) => e.preventDefault()} className="settings" aria-label={label}>
          {shown.map((m) => (
            <Field key={m.key} meta={m} value={data.values[m.key]} source={data.sources[m.key] ?? 'default'} onSave={(v) => void save(m.key, v)} />
          ))}
        </form>
      )}
    </>
  );
}
