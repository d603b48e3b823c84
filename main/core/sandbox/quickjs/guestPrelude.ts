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
// Two parts. QuickJS compiles a prelude in full each time (no lazy parsing,
// and no compiled form that can move to a fresh context), and that compile
// was most of a sandbox's set-up: ~1.7 ms of a worker's ~2.4 ms per run here.
// So PRELUDE_SOURCE holds what every run uses (the client, the console's
// methods, the return value's serialisation), and PRELUDE_EXTRAS_SOURCE what
// a run needs only when it prints, fails or reaches an unavailable API
// (formatting, a thrown value's clean text, the stand-in client): the host's
// `hostExtras()` compiles it on first use, under the prelude's file name, and
// the prelude hands it the built-ins it captured first.
//
// What the guest sees of a failed call path: frames in the prelude's own file
// and the wrapper's top-level frame are dropped, and columns on line 1 are
// shifted back by the wrapper's prefix, so every frame points at the caller's
// code as they wrote it.

import { GUEST_COMMON_SOURCE, GUEST_FORMAT_SOURCE, GUEST_INTRINSIC_NAMES, GUEST_INTRINSICS_SOURCE } from '../guestClient.ts';

/** File name of the caller's code: stacks read `execute.js:<line>:<column>`. */
export const GUEST_FILENAME = 'execute.js';
/** File name of this prelude inside QuickJS (its frames are filtered out). */
export const PRELUDE_FILENAME = 'airlock-client.js';
/** The wrapper around the caller's code. Line 1 of the code stays line 1 of `execute.js`. */
export const WRAPPER_PREFIX = '(async function () {';
export const WRAPPER_SUFFIX = '\n})()';

const INTRINSICS = GUEST_INTRINSIC_NAMES.join(', ');

/**
 * Evaluates to a function `(hostCall, hostWrite, hostShape, hostExtras, room, rootsJson) => helpers`; rootsJson:
 * [{ idPrefix, globals }]. `hostExtras()` returns PRELUDE_EXTRAS_SOURCE evaluated.
 */
export const PRELUDE_SOURCE = String.raw`(function (hostCall, hostWrite, hostShape, hostExtras, initialRoom, rootsJson) {
  'use strict';${GUEST_INTRINSICS_SOURCE}
  var room = initialRoom;
  var extrasMade;

  function extras() {
    if (extrasMade === undefined) extrasMade = hostExtras()(${INTRINSICS});
    return extrasMade;
  }

  function formatValue(value) {
    return extras().formatValue(value);
  }

  function unavailableClient(error) {
    return extras().unavailableClient(error);
  }
${GUEST_COMMON_SOURCE}
  function write(level, args) {
    // room is in bytes and a character is at least one byte: more characters
    // than room is over the budget for sure; the host measures the rest.
    room = hostWrite(level, extras().formatArgs(args, room));
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
      return extras().describe(error);
    },
  };
})`;

/** Evaluates to a function of the captured built-ins (GUEST_INTRINSIC_NAMES) that returns { formatValue, formatArgs, unavailableClient, describe }. */
export const PRELUDE_EXTRAS_SOURCE = String.raw`(function (${INTRINSICS}) {
  'use strict';
  var PREFIX_LENGTH = ${WRAPPER_PREFIX.length};

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
${GUEST_FORMAT_SOURCE}
  return {
    formatValue: formatValue,
    formatArgs: formatArgs,
    unavailableClient: unavailableClient,
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
