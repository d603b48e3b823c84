// What every engine's guest prelude shares: a run's client roots (one tree
// per API it reaches, and one for other MCP servers' tools) and the global
// names each may be bound to, and the guest-side JavaScript (source text
// spliced into each prelude) that formats console arguments like Node
// (strings as is, JSON for objects, errors with their cleaned stack), checks
// and serialises a client call's argument, and builds the client. The client
// is built as it is used: a global, a namespace or a method exists as a
// property that makes it on first read, from the node's children as the
// prelude's `children(root, path)` gives them, so a run that reaches
// Microsoft Graph's 22,000 operations and calls one builds a handful. The
// spliced source has no line comments and ends every statement with a
// semicolon, so a prelude can be joined onto one line; it expects the prelude
// to have bound stringify, defineProperty, objectKeys, isArray, StringCtor,
// ErrorCtor, TypeErrorCtor and cleanStackOf(error), and it calls no method of
// a built-in prototype after the prelude ran (the code may have replaced them).
import { createHash } from 'node:crypto';
import type { ClientManifest, ClientRoot, ClientShape } from './engine.ts';

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
 * A client's tree as JSON text, the form a prepared API keeps: each namespace an object of its children, each
 * method its operation id (`{"repos":{"get":"repos/get"}}`). Call paths keep methods and namespaces apart, so a
 * node is one or the other; a later operation with a call path already taken is left out, as clientTree does.
 */
export function clientShapeJson(operations: readonly { id: string; callPath: readonly string[] }[]): string {
  const root: ShapeNode = Object.create(null) as ShapeNode;
  for (const operation of operations) {
    const path = operation.callPath;
    if (path.length === 0) continue;
    let node = root;
    let blocked = false;
    for (let i = 0; i < path.length - 1; i++) {
      const next = Object.hasOwn(node, path[i]!) ? node[path[i]!] : (node[path[i]!] = Object.create(null) as ShapeNode);
      if (typeof next === 'string') {
        blocked = true;
        break;
      }
      node = next!;
    }
    const leaf = path[path.length - 1]!;
    if (!blocked && !Object.hasOwn(node, leaf)) node[leaf] = operation.id;
  }
  return JSON.stringify(root);
}

/** A node of a client shape: a namespace (children by name) whose methods are operation ids. */
export interface ShapeNode {
  [name: string]: ShapeNode | string;
}

/** A shape from its JSON text: its key (a hash of the text, unless given) and top-level names. */
export function clientShape(json: string, key?: string): ClientShape {
  const tree = JSON.parse(json) as ShapeNode;
  return { key: key ?? `sha1:${createHash('sha1').update(json).digest('hex')}`, json, top: Object.keys(tree) };
}

/**
 * A run's client roots: as the manifest gives them, or, for a manifest by operations, its whole tree bound to its
 * globals and each of its namespaces bound to a global of that name. Globals are valid identifiers that shadow
 * nothing, each bound once (the first root that names it keeps it).
 */
export function clientRoots(manifest: ClientManifest): ClientRoot[] {
  const taken = new Set<string>();
  const claim = (names: readonly string[]) => clientGlobals(names).filter((n) => !taken.has(n) && !!taken.add(n));
  if ('roots' in manifest) return manifest.roots.map((r) => ({ ...r, globals: claim(r.globals) })).filter((r) => r.globals.length > 0);
  const tree = shapeTree(clientTree(manifest.operations));
  const roots: ClientRoot[] = [];
  const whole = claim(manifest.globals);
  if (whole.length > 0) roots.push({ shape: clientShape(JSON.stringify(tree)), idPrefix: '', globals: whole });
  for (const name of manifest.namespaces ?? []) {
    const child = Object.hasOwn(tree, name) ? tree[name] : undefined;
    if (!child || typeof child === 'string') continue;
    const globals = claim([name]);
    if (globals.length > 0) roots.push({ shape: clientShape(JSON.stringify(child)), idPrefix: '', globals });
  }
  return roots;
}

/** A client tree as a shape's nodes (a node that is both a method and a namespace is the method). */
function shapeTree(node: ClientNode): ShapeNode {
  const out = Object.create(null) as ShapeNode;
  for (const [name, child] of Object.entries(node.children)) out[name] = child.operationId ?? shapeTree(child);
  return out;
}

/**
 * Operation ids of other MCP servers' tools start with this (`mcp@<server>:<tool>`; no API's name holds `@`): such
 * a method sends its whole argument as the tool's arguments, where an API method sends { path, query, body… }.
 */
export const TOOL_OPERATION_PREFIX = 'mcp@';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED_GLOBALS = new Set(['console', 'globalThis', 'undefined', 'NaN', 'Infinity', 'eval']);

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
  var PromiseCtor = Promise;
  var ProxyCtor = Proxy;
  var StringCtor = String;
  var ErrorCtor = Error;
  var TypeErrorCtor = TypeError;`;

/** The names GUEST_INTRINSICS_SOURCE binds, in order: what a prelude hands code it compiles later. */
export const GUEST_INTRINSIC_NAMES: readonly string[] = [...GUEST_INTRINSICS_SOURCE.matchAll(/var (\w+) =/g)].map((m) => m[1]!);

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

  function append(path, name) {
    var out = [];
    for (var i = 0; i < path.length; i++) out[i] = path[i];
    out[path.length] = name;
    return out;
  }

  function dotted(label, path) {
    var text = label;
    for (var i = 0; i < path.length; i++) text += '.' + path[i];
    return text;
  }

  function lazy(target, key, enumerable, make) {
    defineProperty(target, key, {
      enumerable: enumerable,
      configurable: true,
      get: function () {
        var value = make();
        define(target, key, value, enumerable);
        return value;
      },
      set: function (value) { define(target, key, value, enumerable); }
    });
  }

  function makeNamespace(rootIndex, root, path, makeMethod, children) {
    var target = {};
    var kids = children(rootIndex, path);
    var names = objectKeys(kids);
    for (var i = 0; i < names.length; i++) {
      (function (name, child) {
        var childPath = append(path, name);
        if (typeof child === 'string') {
          lazy(target, name, true, function () { return makeMethod(root.idPrefix + child, dotted(root.globals[0], childPath)); });
        } else {
          lazy(target, name, true, function () { return makeNamespace(rootIndex, root, childPath, makeMethod, children); });
        }
      })(names[i], kids[names[i]]);
    }
    return target;
  }

  function bindRoots(target, roots, makeMethod, children) {
    for (var r = 0; r < roots.length; r++) {
      (function (rootIndex, root) {
        var made;
        var make = function () {
          if (made === undefined) made = root.unavailable !== undefined ? unavailableClient(root.unavailable) : makeNamespace(rootIndex, root, [], makeMethod, children);
          return made;
        };
        for (var g = 0; g < root.globals.length; g++) lazy(target, root.globals[g], false, make);
      })(r, roots[r]);
    }
  }
`;

/**
 * The guest-side JavaScript a run needs only when it prints, fails or reaches an API that is unavailable: console
 * formatting, the clean text of a thrown value, the stand-in client. The QuickJS prelude compiles it on first use (its
 * compile is most of a sandbox's set-up); the subprocess engines splice it in with the rest.
 */
export const GUEST_FORMAT_SOURCE = String.raw`
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

  function unavailableClient(error) {
    var answer = function () {
      return PromiseCtor.resolve({ data: null, error: { code: StringCtor(error.code), message: StringCtor(error.message) }, status: 0 });
    };
    var proxy = new ProxyCtor(function () {}, {
      get: function (target, key) { return key === 'then' ? undefined : proxy; },
      apply: answer
    });
    return proxy;
  }
`;
