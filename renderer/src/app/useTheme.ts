// The theme: the setting applied to the document.
import { useEffect } from 'react';
import { useCall } from '../api/hooks.ts';

/** The theme setting: system follows the OS (prefers-color-scheme); light and dark force it. */
export function useTheme(): void {
  const settings = useCall('settings.get', {});
  const theme = settings.data?.values.theme;
  useEffect(() => {
    if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  }, [theme]);
}
