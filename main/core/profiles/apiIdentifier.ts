// The name an API is reached by inside `execute` (`github.repos.get`,
// `openagenda.events.list`): its profile's name when that is a JavaScript
// identifier a script may use, else a derived one — `-` becomes `_`, a
// leading digit gets a `_` before it, and a reserved word or a global the
// sandbox keeps (`api`, `console`, `delete`…) gets a `_` after it. Profile
// names hold only [a-z0-9_-], so the derivation is stable; two profiles that
// would get the same name are told apart by `identifierClash`.

/** JavaScript's reserved words, the literals, and the globals a sandbox script always has. */
const RESERVED = new Set([
  ...['break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends'],
  ...['false', 'finally', 'for', 'function', 'if', 'implements', 'import', 'in', 'instanceof', 'interface', 'let', 'new', 'null'],
  ...['package', 'private', 'protected', 'public', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof'],
  ...['var', 'void', 'while', 'with', 'yield', 'await', 'async', 'arguments', 'eval', 'undefined', 'NaN', 'Infinity'],
  ...['api', 'console', 'globalThis', 'Function', 'Object', 'Array', 'JSON', 'Math', 'Promise', 'Error', 'String', 'Number', 'Date'],
]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The identifier a profile's API is reached by in `execute`. */
export function apiIdentifier(profileName: string): string {
  let id = profileName.replace(/[^\w$]/g, '_');
  if (/^\d/.test(id)) id = `_${id}`;
  if (RESERVED.has(id)) id = `${id}_`;
  return IDENTIFIER.test(id) ? id : `_${id}`;
}

/** The globals a script may reach the API by when it is the session's only one: `api`, its identifier, its alias. */
export function clientNamesOf(profile: { name: string; alias?: string | undefined }): string[] {
  return [...new Set(['api', apiIdentifier(profile.name), ...(profile.alias ? [profile.alias] : [])])];
}

/** How an API is named before it has loaded (no title or size yet): its identifier and client names. */
export function namedFromProfile(profile: { name: string; alias?: string | undefined }): { id: string; clientNames: string[] } {
  return { id: apiIdentifier(profile.name), clientNames: clientNamesOf(profile) };
}

/** Whether a script may use this name for an API (an alias, say): an identifier that is not reserved. */
export function isUsableIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/**
 * The profile already reached by the same identifier, if any: two profiles never share one. `taken` maps each
 * identifier in use (names and aliases) to its profile's name.
 */
export function identifierClash(profileName: string, alias: string | undefined, taken: ReadonlyMap<string, string>): string | undefined {
  for (const id of [apiIdentifier(profileName), ...(alias ? [alias] : [])]) {
    const owner = taken.get(id);
    if (owner !== undefined && owner !== profileName) {
      return `profile '${profileName}' would be reached in execute as \`${id}\`, which profile '${owner}' already uses: rename one of them${alias === id ? ' or change the alias' : ''}`;
    }
  }
  return undefined;
}
