// The login name of the person running Airlock, for "decided by" lines.
import { userInfo } from 'node:os';

export function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'user';
  }
}
