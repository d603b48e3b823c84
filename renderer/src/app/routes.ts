// The screens and their names (the nav links' accessible names, which tests use).
export const SCREENS = [
  { id: 'overview', label: 'Overview' },
  { id: 'approvals', label: 'Approvals' },
  { id: 'rules', label: 'Rules' },
  { id: 'activity', label: 'Activity' },
  { id: 'logs', label: 'Logs' },
  { id: 'engine', label: 'Engine' },
  { id: 'apis', label: 'APIs' },
  { id: 'servers', label: 'Servers' },
  { id: 'clients', label: 'Clients' },
  { id: 'settings', label: 'Settings' },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];

export function screenFromHash(hash: string): ScreenId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return SCREENS.find((s) => s.id === id)?.id ?? 'overview';
}
