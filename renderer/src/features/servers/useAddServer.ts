// The state of the "Add a server" form (AddServer.tsx) and its submission:
// the draft (every mode's fields, kept when the mode changes), what stands in
// the way of each field, the core's refusal, and the focus that goes to the
// field an error names. What the draft sends and which field a refusal is
// about are serverForm.ts's.
import { useRef, useState } from 'react';
import type { ServerView } from '../../../../contract/servers.ts';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { EMPTY_DRAFT, MODE_FIELDS, addInput, draftProblems, fieldOfError, suggestedName, type AddDraft, type AddField, type AddMode } from './serverForm.ts';
import { messageOf } from '../../../../contract/values.ts';

export interface Refusal {
  field: AddField | undefined;
  message: string;
  hint?: string;
}

type FieldElement = HTMLInputElement | HTMLTextAreaElement;

/** The id of a field's control; its hint is `<id>-hint`, its error `<id>-error`. */
export const idOf = (f: AddField) => `add-server-${f}`;

/** The form's fields by name, to give one the focus once React has drawn its error. */
function useFieldFocus() {
  const fields = useRef<Partial<Record<AddField, FieldElement | null>>>({});
  const focusField = (field: AddField) => {
    // After React has drawn the error, so it is read with the field.
    requestAnimationFrame(() => fields.current[field]?.focus());
  };
  const refOf = (f: AddField) => (el: FieldElement | null) => {
    fields.current[f] = el;
  };
  return { focusField, refOf };
}

export type AddServerForm = ReturnType<typeof useAddServer>;

/** `taken`: the names already behind Airlock. `onAdded`: the server as the core answered it, and how it was given. */
export function useAddServer(taken: readonly string[], onAdded: (view: ServerView, mode: AddMode) => void) {
  const { api } = useControl();
  const [draft, setDraft] = useState<AddDraft>(EMPTY_DRAFT);
  /** What stands in the way, each by its field: found here on Add, or the core's refusal. Editing a field clears its own. */
  const [problems, setProblems] = useState<Partial<Record<AddField, string>>>({});
  const [refusal, setRefusal] = useState<Refusal>();
  const [adding, setAdding] = useState(false);
  /** The name was filled from the pasted JSON (and not typed): a new paste may fill it again. */
  const nameFromJson = useRef(false);
  const { focusField, refOf } = useFieldFocus();

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

  /** A field has an error: found here, or the core's refusal naming it. */
  const hasError = (f: AddField) => Boolean(problems[f]) || refusal?.field === f;

  return {
    draft,
    problems,
    refusal,
    adding,
    /** The name as the hints show it in a command line. */
    shownName: draft.name.trim() || 'NAME',
    edit,
    submit,
    chooseMode: (mode: AddMode) => {
      edit({ mode });
      setProblems({});
      setRefusal(undefined);
    },
    typeName: (name: string) => {
      nameFromJson.current = false;
      edit({ name }, 'name');
    },
    pasteJson: (json: string) => {
      const suggested = draft.name.trim() === '' || nameFromJson.current ? suggestedName(json) : undefined;
      if (suggested) nameFromJson.current = true;
      edit({ json, ...(suggested ? { name: suggested } : {}) }, 'json');
    },
    /** The props that tie a field to its hint and its error. */
    described: (f: AddField, hint: boolean) => {
      const error = hasError(f);
      const ids = [hint ? `${idOf(f)}-hint` : '', error ? `${idOf(f)}-error` : ''].filter(Boolean).join(' ');
      return {
        id: idOf(f),
        ref: refOf(f),
        ...(ids ? { 'aria-describedby': ids } : {}),
        ...(error ? { 'aria-invalid': true as const, 'aria-errormessage': `${idOf(f)}-error` } : {}),
      };
    },
  };
}
