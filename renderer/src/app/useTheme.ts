// The theme: the setting applied to the document, at once when it changes
// (a save on the Settings screen, another window, the CLI): the core says so
// with a settings-applied event, and the setting is read again.
import { useEffect } from 'react';
import { useCall } from '../api/hooks.ts';

/** The theme setting: system follows the OS (prefers-color-scheme); light and dark force it. */
export function useTheme(): void {
  const settings = useCall('settings.get', {}, { refreshOn: ['settings-applied'] });
  const theme = settings.data?.values.theme;
  useEffect(() => {
    if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  }, [theme]);
}
