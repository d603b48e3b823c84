// Settings: every setting, saved to settings.json from here unless a flag or
// env var sets it. Live settings apply at once; the others after a restart,
// and the screen says which.
import { SettingsForm } from '../../components/SettingsForm.tsx';

export function SettingsScreen() {
  return (
    <div className="screen">
      <h1>Settings</h1>
      <SettingsForm label="Settings" />
    </div>
  );
}
