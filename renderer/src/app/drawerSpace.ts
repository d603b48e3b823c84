// The room the approval drawer takes, kept in CSS variables while it is
// shown, so the screen under it is laid out around it and the drawer never
// covers a screen's own actions (issue 39 §1, §13):
// - open in a wide window it floats at the right, full height: the screen's
//   column ends before it (--drawer-side on the shell), like a side panel;
// - folded to one line, or docked along the bottom of a narrow window, it
//   takes the bottom: the screen keeps that much room at its end and its
//   sticky bottom bar (Settings' Save) sits above it (--drawer-space).
// Measured, not guessed: the drawer's size changes with its request, with
// folding and with the window.
import { useLayoutEffect, type RefObject } from 'react';

/** The gap left between the screen (or its bar) and the drawer. */
const GAP_PX = 8;
/** Below this width the drawer is docked along the bottom (styles.css says the same). */
export const DOCKED_BELOW_PX = 1000;

export interface DrawerRoom {
  /** Room to keep at the right of the screen's column (0: none). */
  side: number;
  /** Room to keep at the bottom of the screen (0: none). */
  bottom: number;
}

/** Where the drawer's room goes, from its box and the window's size. */
export function drawerRoom(box: { top: number; left: number }, view: { width: number; height: number }, folded: boolean): DrawerRoom {
  if (box.top >= view.height) return { side: 0, bottom: 0 };
  if (!folded && view.width >= DOCKED_BELOW_PX) return { side: Math.ceil(view.width - box.left + GAP_PX), bottom: 0 };
  return { side: 0, bottom: Math.ceil(view.height - box.top + GAP_PX) };
}

export function useDrawerSpace(ref: RefObject<HTMLElement | null>, folded: boolean): void {
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const root = document.documentElement;
    const measure = () => {
      const room = drawerRoom(element.getBoundingClientRect(), { width: window.innerWidth, height: window.innerHeight }, folded);
      root.style.setProperty('--drawer-side', `${room.side}px`);
      root.style.setProperty('--drawer-space', `${room.bottom}px`);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
      root.style.removeProperty('--drawer-side');
      root.style.removeProperty('--drawer-space');
    };
  }, [ref, folded]);
}
