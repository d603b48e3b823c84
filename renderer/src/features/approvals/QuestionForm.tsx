// The answer to another MCP server's question, inside the approval prompt:
// one labelled control per field the server asks for (text, a choice, a
// number, yes/no), its default filled in, required fields marked. What the
// person types lives in the prompt's own state (keyed by the request), so a
// countdown tick or a new request arriving behind it never clears it. Enter
// in a field sends nothing: the answer goes with the "Send answer" button or
// Ctrl/⌘+Enter, after the prompt's guard, and a field that does not fit is
// named before anything is sent.
import type { QuestionAnswer, QuestionField } from '../../../../contract/approvals.ts';
import './approvalPrompt.css';

/** What the controls hold: text as typed (numbers too, until sent), yes/no as booleans, a list's choices ticked. */
export type QuestionDraft = Record<string, string | boolean | string[]>;

/** The form as the server's defaults fill it. */
export function initialDraft(fields: readonly QuestionField[]): QuestionDraft {
  return Object.fromEntries(
    fields.map((f) => [
      f.name,
      f.type === 'boolean'
        ? f.default === true
        : f.type === 'list'
          ? Array.isArray(f.default)
            ? f.default
            : []
          : f.default !== undefined
            ? String(f.default)
            : (f.choices?.[0] ?? ''),
    ]),
  );
}

/** The answer the draft makes: numbers read as numbers, empty optional fields left out (the core checks the rest). */
export function answerOf(fields: readonly QuestionField[], draft: QuestionDraft): QuestionAnswer {
  const answer: QuestionAnswer = {};
  for (const f of fields) {
    const value = draft[f.name];
    if (value === undefined || value === '') continue;
    if (f.type === 'list') answer[f.name] = Array.isArray(value) ? value : [];
    else if (f.type === 'boolean') answer[f.name] = value === true;
    else if (f.type === 'number' || f.type === 'integer') answer[f.name] = Number(value);
    else answer[f.name] = String(value);
  }
  return answer;
}

export function QuestionForm({
  fields,
  draft,
  onChange,
  idPrefix,
  problem,
}: {
  fields: readonly QuestionField[];
  draft: QuestionDraft;
  onChange(draft: QuestionDraft): void;
  idPrefix: string;
  /** Why the answer cannot be sent yet, naming the field (shown and announced). */
  problem?: string | undefined;
}) {
  const set = (name: string, value: string | boolean | string[]) => onChange({ ...draft, [name]: value });
  return (
    <fieldset className="question-form" aria-describedby={problem ? `${idPrefix}-problem` : undefined}>
      <legend>Your answer (sent to this server only)</legend>
      {fields.length === 0 ? <p className="scope-hint">The server asks for no details: send the answer to go on, or decline.</p> : null}
      {fields.map((f) => {
        const id = `${idPrefix}-field-${f.name}`;
        const label = f.title ?? f.name;
        const hint = f.description ? (
          <span id={`${id}-hint`} className="scope-hint">
            {f.description}
          </span>
        ) : null;
        const described = f.description ? `${id}-hint` : undefined;
        if (f.type === 'list') {
          const ticked = Array.isArray(draft[f.name]) ? (draft[f.name] as string[]) : [];
          return (
            <fieldset key={f.name} className="question-field question-list" aria-describedby={described}>
              <legend>
                {label}
                {f.required ? <span aria-hidden="true"> *</span> : <span className="muted"> (optional)</span>}
              </legend>
              {(f.choices ?? []).map((choice) => (
                <label key={choice} className="question-check">
                  <input
                    type="checkbox"
                    checked={ticked.includes(choice)}
                    onChange={(e) => set(f.name, e.target.checked ? [...ticked, choice] : ticked.filter((c) => c !== choice))}
                  />
                  {choice}
                </label>
              ))}
              {hint}
            </fieldset>
          );
        }
        if (f.type === 'boolean') {
          return (
            <div key={f.name} className="question-field question-check">
              <input id={id} type="checkbox" checked={draft[f.name] === true} onChange={(e) => set(f.name, e.target.checked)} aria-describedby={described} />
              <label htmlFor={id}>{label}</label>
              {hint}
            </div>
          );
        }
        return (
          <div key={f.name} className="question-field">
            <label htmlFor={id}>
              {label}
              {f.required ? <span aria-hidden="true"> *</span> : <span className="muted"> (optional)</span>}
            </label>
            {f.choices ? (
              <select
                id={id}
                value={String(draft[f.name] ?? '')}
                onChange={(e) => set(f.name, e.target.value)}
                aria-required={f.required}
                aria-describedby={described}
              >
                {f.required ? null : <option value="">—</option>}
                {f.choices.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                type={f.type !== 'string' ? 'number' : f.format === 'email' ? 'email' : f.format === 'uri' ? 'url' : f.format === 'date' ? 'date' : 'text'}
                min={f.minimum}
                max={f.maximum}
                inputMode={f.type === 'integer' ? 'numeric' : f.type === 'number' ? 'decimal' : undefined}
                step={f.type === 'integer' ? 1 : f.type === 'number' ? 'any' : undefined}
                value={String(draft[f.name] ?? '')}
                onChange={(e) => set(f.name, e.target.value)}
                // Enter in a field sends nothing: the answer goes with the button or Ctrl/⌘+Enter.
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) e.preventDefault();
                }}
                aria-required={f.required}
                aria-invalid={problem?.includes(`"${label}"`) ? true : undefined}
                aria-describedby={described}
                maxLength={f.type === 'string' ? 2000 : undefined}
                autoComplete="off"
              />
            )}
            {hint}
          </div>
        );
      })}
      {problem ? (
        <p id={`${idPrefix}-problem`} className="question-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </fieldset>
  );
}
