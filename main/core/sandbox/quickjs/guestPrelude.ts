// The JavaScript that runs inside QuickJS before the caller's code: it builds
// the API client and the console from three host functions it receives as
// arguments, so the bridges never appear as globals. It installs exactly the
// client globals the run's roots name (`api`, the profile's alias, each API's
// name, `mcp`) and `console`, and hands the worker two helpers it uses at the
// end of a run: `serialize` (return value to JSON, bounded by the output
// budget) and `describe` (a thrown value to a clean name, message and stack).
// The client's trees stay in the worker: `hostShape(root, path)` gives one
// node's children as the code reaches it (name → operation id, or 0 for a
// namespace).
//
// What it shares with the subprocess engines' prelude (formatting, argument
// checks, the client tree) comes from ../guestClient.ts.
//
// What the guest sees of a failed call path: frames in the prelude's own file
// and the wrapper's top-level frame are dropped, and columns on line 1 are
// shifted back by the wrapper's prefix, so every frame points at the caller's
// code as they wrote it.

import { GUEST_COMMON_SOURCE, GUEST_INTRINSICS_SOURCE } from '../guestClient.ts';

/** File name of the caller's code: stacks read `execute.js:<line>:<column>`. */
export const GUEST_FILENAME = 'execute.js';
/** File name of this prelude inside QuickJS (its frames are filtered out). */
export const PRELUDE_FILENAME = 'airlock-client.js';
/** The wrapper around the caller's code. Line 1 of the code stays line 1 of `execute.js`. */
export const WRAPPER_PREFIX = '(async function () {';
export const WRAPPER_SUFFIX = '\n})()';

/** Evaluates to a function `(hostCall, hostWrite, hostShape, room, rootsJson) => helpers`; rootsJson: [{ idPrefix, globals }]. */
export const PRELUDE_SOURCE = String.raw`(function (hostCall, hostWrite, hostShape, initialRoom, rootsJson) {
  'use strict';${GUEST_INTRINSICS_SOURCE}
  var PREFIX_LENGTH = ${WRAPPER_PREFIX.length};
  var room = initialRoom;


  function cleanStack(stack) {
    if (typeof stack !== 'string') return '';
    var lines = stack.split('\n');
    var kept = [];
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i];
      if (line.trim() === '') continue;
      if (line.indexOf('${PRELUDE_FILENAME}') !== -1) continue;
      if (line.indexOf('at <eval> (${GUEST_FILENAME}:') !== -1) continue;
      kept.push(line.replace(/${GUEST_FILENAME.replace('.', '\\.')}:1:(\d+)/, function (_, column) {
        return '${GUEST_FILENAME}:1:' + Math.max(1, Number(column) - PREFIX_LENGTH);
      }));
    }
    return kept.join('\n');
  }

  function cleanStackOf(error) {
    return cleanStack(error.stack);
  }
${GUEST_COMMON_SOURCE}
  function write(level, args) {
    // room is in bytes and a character is at least one byte: more characters
    // than room is over the budget for sure; the host measures the rest.
    room = hostWrite(level, formatArgs(args, room));
  }

  var consoleObject = makeConsole(write);

  function makeMethod(operationId, name) {
    var method = async function (args) {
      return parse(await hostCall(operationId, callJson(name, args, {}, isToolOperation(operationId))));
    };
    defineProperty(method, 'name', { value: name.slice(name.lastIndexOf('.') + 1), configurable: true });
    return method;
  }

  function children(rootIndex, path) {
    return parse(hostShape(rootIndex, stringify(path)));
  }

  bindRoots(globalThis, parse(rootsJson), makeMethod, children);
  define(globalThis, 'console', consoleObject, false);

  return {
    serialize: function (value, budget) {
      if (value === undefined) return undefined;
      var json = stringify(value);
      if (json === undefined) return undefined;
      return json.length > budget ? -1 : json;
    },
    describe: function (error) {
      if (error instanceof ErrorCtor) {
        return stringify({
          isError: true,
          name: StringCtor(error.name),
          message: StringCtor(error.message),
          stack: cleanStack(error.stack),
        });
      }
      return stringify({ isError: false, text: formatValue(error) });
    },
  };
})`;
