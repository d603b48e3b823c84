// What keeps a prompt for a person from being answered by accident: a key
// that was already down when the prompt appeared (a held space bar, the
// auto-repeat of Enter) never answers it, and its buttons ignore input for a
// short guard time after they appear. Also: whether a text field has the
// focus (then the prompt never takes it), and where focus was before.

/** How long decision buttons ignore input after they appear (ms). */
export const GUARD_MS = 500;

const down = new Set<string>();
let listening = false;

/** Starts tracking which keys are down (once per page). */
export function trackKeys(): void {
  if (listening || typeof document === 'undefined') return;
  listening = true;
  document.addEventListener('keydown', (e) => down.add(e.key), true);
  document.addEventListener(
    'keyup',
    (e) => {
      down.delete(e.key);
      // macOS sends no keyup for a key released while ⌘ is down (⌘+Enter): the modifier's release clears them all.
      if (e.key === 'Meta' || e.key === 'Control') down.clear();
    },
    true,
  );
  addEventListener('blur', () => down.clear());
}

/** The keys down right now: any of them began before a prompt that appears now. */
export function keysDownNow(): Set<string> {
  return new Set(down);
}

/** Whether the element takes typing: a text input, a text area, a select or an editable region. */
export function isTextField(el: Element | null): boolean {
  if (!el) return false;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (el instanceof HTMLInputElement) return !['button', 'submit', 'reset', 'checkbox', 'radio', 'range', 'color', 'file', 'image'].includes(el.type);
  return (el as HTMLElement).isContentEditable === true;
}
