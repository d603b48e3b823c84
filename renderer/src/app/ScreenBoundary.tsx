// Keeps the shell standing when a screen cannot be shown: a screen loaded on
// first visit (Activity, Logs) cannot be fetched while the companion is not
// answering, and a failed render would otherwise blank the whole window. The
// screen's title stays, with what happened; the next screen, or the
// companion coming back, tries again. (The browser remembers a module that
// failed to load, so a screen that still fails once the companion is back
// offers to reload the page; the shell fetches those screens early, in the
// background, so that is rare.)
import { Component, lazy, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';

/** lazy() that forgets a failed load, so the next render (another visit, the companion back) fetches the screen again. */
export function retryableLazy<T extends ComponentType<object>>(load: () => Promise<{ default: T }>): { get(): LazyExoticComponent<T>; prefetch(): void } {
  const make = (): LazyExoticComponent<T> =>
    lazy(() =>
      load().catch((error: unknown) => {
        current = make();
        throw error;
      }),
    );
  let current = make();
  return { get: () => current, prefetch: () => void load().catch(() => undefined) };
}

interface Props {
  title: string;
  /** A new key (another screen, the companion back) clears the failure. */
  resetKey: string;
  /** The companion is not answering: the likely reason a screen could not load. */
  away: boolean;
  children: ReactNode;
}

export class ScreenBoundary extends Component<Props, { error: Error | undefined }> {
  override state: { error: Error | undefined } = { error: undefined };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidUpdate(prev: Props) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) {
      this.setState({ error: undefined });
    }
  }

  override render() {
    if (!this.state.error) return this.props.children;
    const unreachable = this.props.away || /fetch|dynamically imported|preload/i.test(this.state.error.message);
    return (
      <div className="screen">
        <h1>{this.props.title}</h1>
        <p role="alert">
          {this.props.away
            ? 'This screen could not be loaded: Airlock is not answering. It loads when Airlock is back.'
            : unreachable
              ? 'This screen could not be loaded.'
              : `This screen failed: ${this.state.error.message}`}
        </p>
        {!this.props.away ? (
          <button type="button" onClick={() => location.reload()}>
            Reload Airlock
          </button>
        ) : null}
      </div>
    );
  }
}
