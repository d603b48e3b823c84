// What every engine's guest prelude shares: the client tree built from the
// manifest's call paths, the global names it may be bound to, and the
// guest-side JavaScript (source text spliced into each prelude) that formats
// console arguments like Node (strings as is, JSON for objects, errors with
// their cleaned stack), checks and serialises a client call's argument, and
// builds the nested client object. The spliced source has no line comments
// and ends every statement with a semicolon, so a prelude can be joined onto
// one line; it expects the prelude to have bound stringify, defineProperty,
// objectKeys, isArray, StringCtor, ErrorCtor, TypeErrorCtor and
// cleanStackOf(error).

/** One node of the client tree: a namespace, a method, or both. */
export interface ClientNode {
  operationId?: string;
  children: Record<string, ClientNode>;
}

export function clientTree(operations: readonly { operationId: string; callPath: string[] }[]): ClientNode {
  const root: ClientNode = { children: Object.create(null) as Record<string, ClientNode> };
  for (const operation of operations) {
    if (operation.callPath.length === 0) continue;
    let node = root;
    for (const segment of operation.callPath) {
      if (!Object.hasOwn(node.children, segment)) node.children[segment] = { children: Object.create(null) as Record<string, ClientNode> };
      node = node.children[segment]!;
    }
    node.operationId ??= operation.operationId;
  }
  return root;
}

/**
 * Operation ids of other MCP servers' tools start with this (`mcp@<server>:<tool>`; no API's name holds `@`): such
 * a method sends its whole argument as the tool's arguments, where an API method sends { path, query, body… }.
 */
export const TOOL_OPERATION_PREFIX = 'mcp@';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED_GLOBALS = new Set(['console', 'globalThis', 'undefined', 'NaN', 'Infinity', 'eval']);

/** The name a client's methods are labelled with (`api.events.list`): its first global; none when each API is a global of its own. */
export function clientLabel(manifest: { globals: readonly string[]; namespaces?: readonly string[] }): string {
  return manifest.globals[0] ?? (manifest.namespaces?.length ? '' : 'api');
}

/** The client's global names: valid identifiers, never one that would shadow the console or the global object. */
export function clientGlobals(globals: readonly string[]): string[] {
  return [...new Set(globals.filter((name) => IDENTIFIER.test(name) && !RESERVED_GLOBALS.has(name)))];
}

/** The built-ins both preludes capture first, before anything can replace them. */
export const GUEST_INTRINSICS_SOURCE = String.raw`
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var defineProperty = Object.defineProperty;
  var objectKeys = Object.keys;
  var isArray = Array.isArray;
  var StringCtor = String;
  var ErrorCtor = Error;
  var TypeErrorCtor = TypeError;`;

export const GUEST_COMMON_SOURCE = String.raw`
  var ARG_KEYS = ['path', 'query', 'body', 'headers', 'cookies'];
  var LEVELS = ['log', 'info', 'warn', 'error', 'debug'];

  function define(target, key, value, enumerable) {
    defineProperty(target, key, { value: value, writable: true, configurable: true, enumerable: enumerable });
  }

  function makeConsole(write) {
    var consoleObject = {};
    for (var l = 0; l < LEVELS.length; l++) {
      (function (level) {
        define(consoleObject, level, function () { write(level, arguments); }, true);
      })(LEVELS[l]);
    }
    return consoleObject;
  }

  function bigintReplacer(_key, value) {
    return typeof value === 'bigint' ? value.toString() + 'n' : value;
  }

  function formatValue(value) {
    switch (typeof value) {
      case 'string': return value;
      case 'undefined': return 'undefined';
      case 'function': return '[Function: ' + (value.name || 'anonymous') + ']';
      case 'symbol': return value.toString();
      case 'bigint': return value.toString() + 'n';
      case 'object': {
        if (value === null) return 'null';
        if (value instanceof ErrorCtor) {
          var head = value.name + ': ' + value.message;
          var frames = cleanStackOf(value);
          return frames ? head + '\n' + frames : head;
        }
        try {
          var json = stringify(value, bigintReplacer);
          return json === undefined ? StringCtor(value) : json;
        } catch (error) {
          return '[Circular]';
        }
      }
      default: return StringCtor(value);
    }
  }

  function formatArgs(args, room) {
    var text = '';
    for (var i = 0; i < args.length; i++) {
      var part;
      try { part = formatValue(args[i]); } catch (error) { part = '[unprintable]'; }
      text += (i === 0 ? '' : ' ') + part;
      if (text.length > room) break;
    }
    return text.length > room ? text.slice(0, room + 1) : text;
  }

  function isToolOperation(operationId) {
    return operationId.indexOf('${TOOL_OPERATION_PREFIX}') === 0;
  }

  function callJson(name, args, payload, tool) {
    if (tool) {
      if (args !== undefined && (args === null || typeof args !== 'object' || isArray(args))) {
        throw new TypeErrorCtor(name + '() takes one argument: an object of the tool\'s arguments');
      }
      payload.body = args === undefined ? {} : args;
    } else if (args !== undefined && args !== null) {
      if (typeof args !== 'object' || isArray(args)) {
        throw new TypeErrorCtor(name + '() takes one argument: an object { path, query, body, headers, cookies }');
      }
      for (var i = 0; i < ARG_KEYS.length; i++) {
        var key = ARG_KEYS[i];
        if (args[key] !== undefined) payload[key] = args[key];
      }
    }
    var json;
    try {
      json = stringify(payload);
    } catch (error) {
      var reason;
      try { reason = error instanceof ErrorCtor ? StringCtor(error.message) : formatValue(error); } catch (inner) { reason = 'unprintable error'; }
      throw new TypeErrorCtor(name + '(): the arguments are not JSON-serialisable (' + reason + ')');
    }
    return json === undefined ? '{}' : json;
  }

  function bindGlobals(target, client, globalNames, namespaces) {
    for (var g = 0; g < globalNames.length; g++) define(target, globalNames[g], client, false);
    for (var n = 0; n < namespaces.length; n++) {
      if (client[namespaces[n]] !== undefined) define(target, namespaces[n], client[namespaces[n]], false);
    }
  }

  function buildClient(node, name, makeMethod) {
    var target = node.operationId !== undefined ? makeMethod(node.operationId, name) : {};
    var names = objectKeys(node.children);
    for (var i = 0; i < names.length; i++) {
      define(target, names[i], buildClient(node.children[names[i]], name === '' ? names[i] : name + '.' + names[i], makeMethod), true);
    }
    return target;
  }
`;
