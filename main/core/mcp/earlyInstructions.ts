// The server instructions an initialize answered early carries: the enabled
// APIs in the session's scope, read from their profiles (cheap: nothing is
// loaded), as the session's server names them while they load.
import { serverInstructions } from './instructions.ts';
import { ProfileStore } from '../profiles/profileStore.ts';
import { isEnabled } from '../profiles/profile.ts';
import { apiIdentifier, namedFromProfile } from '../profiles/apiIdentifier.ts';
import { dataPaths } from '../config/dataDir.ts';

export function earlyInstructions(dataDir: string, scope: string[] | undefined): string {
  const named = new ProfileStore(dataPaths(dataDir).profiles)
    .list()
    .flatMap((l) => (l.profile && isEnabled(l.profile) ? [l.profile] : []))
    .filter((p) => !scope || scope.includes(p.name) || scope.includes(apiIdentifier(p.name)))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(namedFromProfile);
  return serverInstructions({ apis: named, hasExecute: true });
}
