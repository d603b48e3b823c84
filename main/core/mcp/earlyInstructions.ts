// The server instructions an initialize answered early carries: the enabled
// APIs in the session's scope, as their profile files name them (read, not
// checked: profiles/profilePeek.ts), as the session's server names them
// while they load. No zod here.
import { serverInstructions } from './instructions.ts';
import { peekEnabledProfiles } from '../profiles/profilePeek.ts';
import { apiIdentifier, namedFromProfile } from '../profiles/apiIdentifier.ts';
import { dataPaths } from '../config/dataDir.ts';

export function earlyInstructions(dataDir: string, scope: string[] | undefined): string {
  const named = peekEnabledProfiles(dataPaths(dataDir).profiles)
    .filter((p) => !scope || scope.includes(p.name) || scope.includes(apiIdentifier(p.name)))
    .map(namedFromProfile);
  return serverInstructions({ apis: named, hasExecute: true });
}
