// What the organisation's managed policy sets on this screen's choices
// (issue 40 §1), said where the person meets them: "Set by your organisation
// (its managed policy): APIs only at https://api.example.com". Nothing shows
// where there is no policy, or it sets nothing here. A broken managed file
// is said on every screen that takes a note: execute is off until it is fixed.
import type { POLICY_AREAS } from '../../../contract/settings.ts';
import { useCall } from '../api/hooks.ts';

export function OrganisationNote({ area }: { area: (typeof POLICY_AREAS)[number] }) {
  const view = useCall('settings.get', {}, { refreshOn: ['settings-applied'] });
  const policy = view.data?.organisation;
  if (!policy) return null;
  if (policy.state === 'broken')
    return (
      <p className="warning" role="note">
        Your organisation's managed policy ({policy.file}) is broken: {policy.error}. Execute is switched off until it is fixed.
      </p>
    );
  const rules = policy.rules.filter((rule) => rule.area === area);
  if (rules.length === 0) return null;
  return (
    <p className="warning organisation-note" role="note">
      Set by your organisation (its managed policy, <code>{policy.file}</code>): {rules.map((rule) => rule.text).join('; ')}.
    </p>
  );
}
