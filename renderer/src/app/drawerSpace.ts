// The space the approval drawer takes at the bottom of the window, kept in
// the CSS variable --drawer-space while the drawer is shown: the screen
// under it gets that much room at its end and its sticky bottom bar (Settings'
// Save) sits above it, so the drawer never covers a screen's own actions
// (issue 39 §1). Measured, not guessed: the drawer's height changes with
// its request, with folding and with the window.
import { useLayoutEffect, type RefObject } from 'react';

const VARIABLE = '--drawer-space';
/** The gap left between the screen's last line (or its bar) and the drawer. */
const GAP_PX = 8;

/** The room from the top of `element` to the bottom of the window, plus the gap; 0 when it is not shown. */
export function spaceBelow(top: number, viewportHeight: number): number {
  return top >= viewportHeight ? 0 : Math.ceil(viewportHeight - top + GAP_PX);
}

export function useDrawerSpace(ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const root = document.documentElement;
    const measure = () => root.style.setProperty(VARIABLE, `${spaceBelow(element.getBoundingClientRect().top, window.innerHeight)}px`);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
      root.style.removeProperty(VARIABLE);
    };
  }, [ref]);
}
