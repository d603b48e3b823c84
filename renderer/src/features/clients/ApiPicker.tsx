// The APIs a client reaches, picked when Airlock is added to it: "Every API
// served" (the default: no scope, so APIs enabled or added later are reached
// too), or only the APIs checked (a scope: `--api NAME` in the registration).
// Unchecking one API while every API is picked keeps all the others; checking
// "Every API served" again drops the scope. Plain checkboxes in a fieldset:
// Tab moves between them, Space toggles.
import { useEffect, useRef } from 'react';
import type { ApiView } from '../../../../contract/apis.ts';
import './clients.css';

/** What a registration reaches, as a sentence ends: "every API the companion serves" or "only demo, github". */
export function reachOf(apis: readonly string[] | undefined): string {
  return apis && apis.length > 0 ? `only ${apis.join(', ')}` : 'every API the companion serves';
}

/** Whether two scopes name the same APIs (order aside); no scope equals no scope only. */
export function sameScope(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((n) => b.includes(n));
}

function noteOf(view: ApiView | undefined): string {
  if (!view) return 'not an API of this companion: the client reaches nothing by this name until it is added';
  if (!view.enabled) return 'disabled: the client reaches it once it is enabled on the APIs screen';
  if (view.state === 'ready') return view.operations === undefined ? 'served' : `${view.operations} operations`;
  if (view.state === 'failed') return `failed to load${view.error ? `: ${view.error}` : ''}`;
  return view.state;
}

export function ApiPicker({
  idPrefix,
  clientLabel,
  apis,
  registered,
  scope,
  onChange,
  focusFirst = true,
}: {
  idPrefix: string;
  clientLabel: string;
  /** apis.list (undefined while it loads). */
  apis: readonly ApiView[] | undefined;
  /** The scope of the registration in place, if any: its names are listed even when no API has them. */
  registered: readonly string[] | undefined;
  /** The scope picked; undefined: every API served. */
  scope: string[] | undefined;
  onChange(scope: string[] | undefined): void;
  /** Put the keyboard on the first choice when it opens (default), as after an Add button; false in a form that has its own first field. */
  focusFirst?: boolean;
}) {
  const views = new Map((apis ?? []).map((a) => [a.name, a]));
  const names = [...new Set([...(apis ?? []).map((a) => a.name), ...(registered ?? []), ...(scope ?? [])])];
  const every = scope === undefined;
  const toggle = (name: string, checked: boolean) => {
    const picked = scope ?? names;
    onChange(checked ? names.filter((n) => n === name || picked.includes(n)) : picked.filter((n) => n !== name));
  };
  // Opened from the Add button: the choice is where the keyboard goes next.
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusFirst) first.current?.focus();
  }, [focusFirst]);
  return (
    <fieldset className="client-apis">
      <legend>The APIs {clientLabel} reaches</legend>
      <div className="client-api-option">
        <input
          ref={first}
          type="checkbox"
          id={`${idPrefix}-every`}
          checked={every}
          onChange={(e) => onChange(e.target.checked ? undefined : [])}
          aria-describedby={`${idPrefix}-every-hint`}
        />
        <label htmlFor={`${idPrefix}-every`}>Every API served</label>
        <span id={`${idPrefix}-every-hint`} className="hint">
          also those enabled or added later
        </span>
      </div>
      {apis === undefined ? <p className="hint">Loading the APIs…</p> : null}
      <ul className="client-api-list">
        {names.map((name) => {
          const id = `${idPrefix}-api-${name}`;
          return (
            <li key={name} className="client-api-option">
              <input
                type="checkbox"
                id={id}
                checked={every || scope.includes(name)}
                onChange={(e) => toggle(name, e.target.checked)}
                aria-describedby={`${id}-hint`}
              />
              <label htmlFor={id}>{name}</label>
              <span id={`${id}-hint`} className="hint">
                {noteOf(views.get(name))}
              </span>
            </li>
          );
        })}
      </ul>
      {scope?.length === 0 ? (
        <p className="hint" role="status">
          Check at least one API, or Every API served.
        </p>
      ) : null}
    </fieldset>
  );
}
