// Where the page was scrolled, per history entry. A screen opened anew (the
// nav, a link) starts at the top; Back and Forward return to where that entry
// was, a reload too. The browser's own restoration is off: it would apply
// before the screen is drawn (to the screen being left, cut to its height).
// A screen still loading is scrolled again as it grows, until the place is
// there, the person scrolls or presses a key themselves, or a few seconds pass.

/** The key in history.state that names an entry. */
const ENTRY = 'airlockEntry';
/** Where the places are kept for a reload (this tab only). */
const STORE = 'airlock.scroll';
const KEEP = 100;
const RESTORE_FOR_MS = 3000;
const PERSON_MOVES = ['wheel', 'keydown', 'pointerdown', 'touchstart'] as const;

let places: Map<string, number> | undefined;
let current: string | undefined;
let stopRestoring: (() => void) | undefined;

function load(): Map<string, number> {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORE) ?? '[]') as unknown;
    if (Array.isArray(saved))
      return new Map(saved.filter((e): e is [string, number] => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'number'));
  } catch {
    // Nothing kept, or not readable: every entry starts at the top.
  }
  return new Map();
}

function save(): void {
  if (!places) return;
  try {
    sessionStorage.setItem(STORE, JSON.stringify([...places].slice(-KEEP)));
  } catch {
    // Storage refused (full, disabled): places are kept for this page only.
  }
}

/** Takes scrolling over from the browser (once per page). */
function start(): Map<string, number> {
  if (places) return places;
  places = load();
  history.scrollRestoration = 'manual';
  addEventListener(
    'scroll',
    () => {
      if (current === undefined) return;
      places!.delete(current);
      places!.set(current, scrollY);
    },
    { passive: true },
  );
  addEventListener('pagehide', save);
  return places;
}

function entryKey(): string | undefined {
  const state: unknown = history.state;
  const key = state && typeof state === 'object' ? (state as Record<string, unknown>)[ENTRY] : undefined;
  return typeof key === 'string' ? key : undefined;
}

/**
 * The page has come to its current history entry. Returns where the entry was scrolled if it was seen before
 * (Back, Forward, a reload), or undefined for a new entry, which is named here.
 */
export function arrive(): number | undefined {
  const known = start();
  const key = entryKey();
  if (key !== undefined) {
    current = key;
    return known.get(key) ?? 0;
  }
  current = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const state: unknown = history.state;
  history.replaceState({ ...(state && typeof state === 'object' ? state : {}), [ENTRY]: current }, '');
  return undefined;
}

/** Scrolls the page to `y`, again as the screen grows if it is not tall enough yet. */
export function scrollToPlace(y: number): void {
  stopRestoring?.();
  scrollTo(0, y);
  if (Math.abs(scrollY - y) <= 1) return;
  const observer = new ResizeObserver(() => {
    scrollTo(0, y);
    if (Math.abs(scrollY - y) <= 1) stop();
  });
  const timer = setTimeout(() => stop(), RESTORE_FOR_MS);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
    for (const e of PERSON_MOVES) removeEventListener(e, stop, true);
    if (stopRestoring === stop) stopRestoring = undefined;
  }
  observer.observe(document.body);
  for (const e of PERSON_MOVES) addEventListener(e, stop, true);
  stopRestoring = stop;
}
