// The MCP server's `instructions`: how a model should use Airlock (search,
// then execute), stated for the APIs in the session's reach and the tools
// actually configured. A client reads them once, at initialize, which may
// come before the APIs finish loading: those still loading are named too.
import { apiName } from './apiName.ts';
import { clientPhrase, exampleReceiver, type NamedApi } from './apisInReach.ts';

export interface InstructionsInput {
  /** The APIs in reach, loaded or still loading. */
  apis: readonly NamedApi[];
  hasExecute: boolean;
}

export function serverInstructions(i: InstructionsInput): string {
  const what =
    i.apis.length === 0
      ? 'web APIs (none is served to this session yet: the person running Airlock can enable one)'
      : i.apis.length === 1
        ? i.apis[0]!.title === undefined
          ? `the ${i.apis[0]!.id} API (loading)`
          : `the ${apiName(i.apis[0]!.title)} (${i.apis[0]!.operations ?? 0} operations)`
        : `${i.apis.length} APIs (${i.apis.map((a) => a.id).join(', ')})`;
  const lines = [
    `Airlock gives you ${what} in code mode, with a person in control.`,
    `1. Call search_docs with what you want to do in plain words. It returns the matching operations with the exact client call (e.g. ${exampleReceiver(i.apis)}.events.list({ path, query, body })), parameters, body and response shapes and an example.`,
  ];
  if (i.hasExecute) {
    lines.push(
      `2. Call execute with the body of an async JavaScript function that uses the API clients (${clientPhrase(i.apis)}) and returns a JSON-serialisable value. Every method resolves to { data, error, status } and never throws on HTTP errors: check \`error\`. Do several calls, loops and filtering in one execute to keep results small.`,
      "3. Calls that change data (POST, PUT, PATCH, DELETE) may wait for a human to approve them in Airlock; a denial comes back as the call's error with the reason. Do not retry a denied call unless the person asks.",
      'The sandbox has no network, filesystem or process access besides the clients; API keys are added outside the sandbox and are never visible to your code.',
    );
  } else {
    lines.push('2. Code execution is not enabled on this server: use the results of search_docs to tell the person which calls to make.');
  }
  return lines.join('\n');
}
