// Airlock's version, from package.json.
import pkg from '../../../package.json' with { type: 'json' };

export const AIRLOCK_VERSION: string = pkg.version;
