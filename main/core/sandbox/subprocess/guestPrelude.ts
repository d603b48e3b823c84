// The program a subprocess engine feeds to Node or Deno on stdin: a one-line
// prelude called with one argument (the run's nonce, the caller's code as a
// string, the client manifest, the gate's URL and run token, the output
// budget). Nothing of the caller's runs before the prelude has finished:
//
// - It keeps what it needs in its own closure (a way to write to stdout, to
//   exit, and to POST to the gate) and then removes the capabilities the code
//   has no business with: `process` / `Deno`, `fetch`, sockets, workers,
//   storage that outlives the run (Deno's localStorage and caches). Under Node
//   it also empties `process.env` and refuses every module import with a
//   resolve hook.
// - It installs the API client (`api` and the profile's alias, or each API's
//   name, and `mcp`: nested objects built from the client's trees as the code
//   first reaches them) and a captured `console`.
// - It compiles the caller's code with the AsyncFunction constructor, which
//   accepts only a function body: the code cannot close the wrapper early and
//   run at the top level. The source is named `execute.js`, so frames read
//   `execute.js:<line>:<col>` after the two header lines are taken off.
// - With `hold` (Linux), it then says it is ready to be measured and waits
//   for the host's SIGUSR2, sent once the run's memory cap is in place
//   (childRun.ts); only then does the code run. A signal, not a request
//   through the gate: Deno's first fetch costs ~25 ms, and the way to the
//   gate may not be open yet (under srt, its proxy).
// - Its own writes to stdout go through a buffer it allocated up front, so
//   an error line still goes out when the code has spent the memory cap.
//
// Every line it writes to stdout starts with the run's nonce, which only the
// prelude holds (it is an argument, never part of a function's source text),
// so the host can tell its messages from anything else.

import { GUEST_COMMON_SOURCE, GUEST_FORMAT_SOURCE, GUEST_INTRINSICS_SOURCE } from '../guestClient.ts';

export { clientGlobals, clientRoots, clientTree, type ClientNode } from '../guestClient.ts';

/** File name of the caller's code in stacks. */
export const GUEST_FILENAME = 'execute.js';

/** The AsyncFunction constructor puts the body after two header lines (`async function anonymous(` and `) {`). */
export const FUNCTION_HEADER_LINES = 2;

/** Message types, one character after the nonce. */
export const LINE_READY = 's';
export const LINE_CONSOLE = 'c';
export const LINE_RESULT = 'r';
export const LINE_ERROR = 'e';
/** The prelude waits for the host's SIGUSR2 before the code runs (the memory hold). */
export const LINE_HOLD = 'h';

export const NEVER_SETTLES_MESSAGE = 'The code awaits a promise that nothing can settle (no API call, timer or other work is pending)';

export interface GuestScriptInput {
  runtime: 'node' | 'deno';
  nonce: string;
  code: string;
  /** The client's roots: each tree as JSON text (parsed when the code first reaches it), its operation ids' prefix, its globals. */
  roots: { shape: string; idPrefix: string; globals: string[]; unavailable?: { code: string; message: string } }[];
  gate: {
    /** `http://127.0.0.1:<port>` */
    url: string;
    port: number;
    token: string;
    /** Reach the gate through the HTTP proxy named in the environment (srt wrapper). */
    viaProxy: boolean;
  };
  outputBytes: number;
  /** Wait for the host's SIGUSR2 before running the code (the memory hold). */
  hold?: boolean;
}

// The prelude is written over several lines for reading and joined onto one
// line before use: every statement ends with a semicolon and there are no
// line comments inside it.
const PRELUDE_SOURCE = String.raw`(function (A) {
  'use strict';
  var G = globalThis;${GUEST_INTRINSICS_SOURCE}
  var NumberCtor = Number;
  var URLCtor = URL;
  var decode = decodeURIComponent;
  var encodeComponent = encodeURIComponent;
  var encoder = new TextEncoder();
  var AsyncFunction = (async function () {}).constructor;
  var NONCE = A.nonce;
  var GATE = A.gate;
  var HEADER_LINES = ${FUNCTION_HEADER_LINES};
  var REMOVED = ['process', 'Deno', 'fetch', 'WebSocket', 'WebSocketStream', 'EventSource', 'Worker', 'SharedWorker', 'localStorage', 'sessionStorage', 'Storage', 'caches', 'CacheStorage', 'Cache', 'BroadcastChannel', 'navigator', 'Navigator', 'alert', 'confirm', 'prompt', 'close', 'require', 'module'];
  var room = A.outputBytes;
  var finished = false;
  var host = {};
  var scratch = new Uint8Array(65536);

  function encodeLine(text) {
    if (text.length * 3 <= scratch.length) return scratch.subarray(0, encoder.encodeInto(text, scratch).written);
    return encoder.encode(text);
  }

  if (A.runtime === 'node') {
    var P = G.process;
    var load = P.getBuiltinModule;
    var fs = load('node:fs');
    var http = load('node:http');
    var vm = load('node:vm');
    var moduleApi = load('node:module');
    var BufferCtor = G.Buffer;
    var exitProcess = P.exit.bind(P);
    var target = { host: '127.0.0.1', port: GATE.port, path: '/call', extra: {} };
    if (GATE.viaProxy) {
      var proxyText = P.env.HTTP_PROXY || P.env.http_proxy;
      if (!proxyText) throw new ErrorCtor('the egress wrapper set no HTTP proxy');
      var proxy = new URLCtor(proxyText);
      target = {
        host: proxy.hostname.replace(/^\[|\]$/g, ''),
        port: NumberCtor(proxy.port) || 80,
        path: GATE.url + '/call',
        extra: { 'proxy-authorization': 'Basic ' + BufferCtor.from(decode(proxy.username) + ':' + decode(proxy.password)).toString('base64') }
      };
    }
    var agent = new http.Agent({ keepAlive: true });
    host.write = function (text) {
      var bytes = encodeLine(text);
      var offset = 0;
      while (offset < bytes.length) {
        try {
          offset += fs.writeSync(1, bytes, offset, bytes.length - offset);
        } catch (error) {
          if (!error || error.code !== 'EAGAIN') throw error;
        }
      }
    };
    host.exit = function (code) { exitProcess(code); };
    host.onGo = function (go) {
      var keep = G.setTimeout(function () {}, 2147483647);
      P.once('SIGUSR2', function () { G.clearTimeout(keep); go(); });
    };
    host.post = function (json) {
      return new PromiseCtor(function (resolve) {
        var body = encoder.encode(json);
        var headers = { host: '127.0.0.1:' + GATE.port, 'content-type': 'application/json', 'content-length': StringCtor(body.length), authorization: 'Bearer ' + GATE.token };
        var extraKeys = objectKeys(target.extra);
        for (var e = 0; e < extraKeys.length; e++) headers[extraKeys[e]] = target.extra[extraKeys[e]];
        var request = http.request({ host: target.host, port: target.port, path: target.path, method: 'POST', headers: headers, agent: agent }, function (response) {
          var chunks = [];
          response.on('data', function (chunk) { chunks.push(chunk); });
          response.on('end', function () { resolve({ status: response.statusCode, text: BufferCtor.concat(chunks).toString('utf8') }); });
          response.on('error', function () { resolve({ status: 0, text: '' }); });
        });
        request.on('error', function () { resolve({ status: 0, text: '' }); });
        request.end(body);
      });
    };
    host.locate = function (code) {
      try {
        new vm.Script('(async function anonymous(\n) {\n' + code + '\n})', { filename: '${GUEST_FILENAME}' });
      } catch (error) {
        var where = /^${GUEST_FILENAME.replace('.', '\\.')}:(\d+)\n[^\n]*\n( *)\^/.exec(StringCtor(error && error.stack));
        if (where) return PromiseCtor.resolve({ line: NumberCtor(where[1]) - HEADER_LINES, column: where[2].length + 1 });
      }
      return PromiseCtor.resolve(undefined);
    };
    var envKeys = objectKeys(P.env);
    for (var k = 0; k < envKeys.length; k++) delete P.env[envKeys[k]];
    P.on('unhandledRejection', function () {});
    P.on('uncaughtException', function (error) { fail(describe(error)); });
    P.on('exit', function () { neverSettled(); });
    moduleApi.registerHooks({
      resolve: function (specifier) {
        throw new ErrorCtor('Modules cannot be imported in the Airlock sandbox (' + StringCtor(specifier) + '): use the api client');
      }
    });
  } else {
    var D = G.Deno;
    var stdout = D.stdout;
    var denoExit = D.exit;
    var realFetch = G.fetch;
    var client;
    if (GATE.viaProxy) {
      var proxyValue = D.env.get('HTTP_PROXY') || D.env.get('http_proxy');
      if (!proxyValue) throw new ErrorCtor('the egress wrapper set no HTTP proxy');
      var proxyUrl = new URLCtor(proxyValue);
      client = D.createHttpClient({ proxy: { url: 'http://' + proxyUrl.host, basicAuth: { username: decode(proxyUrl.username), password: decode(proxyUrl.password) } } });
    }
    host.write = function (text) {
      var bytes = encodeLine(text);
      var offset = 0;
      while (offset < bytes.length) {
        try {
          offset += stdout.writeSync(bytes.subarray(offset));
        } catch (error) {
          if (!error || error.name !== 'WouldBlock') throw error;
        }
      }
    };
    host.exit = function (code) { denoExit(code); };
    host.onGo = function (go) {
      var keep = G.setTimeout(function () {}, 2147483647);
      var listener = function () {
        D.removeSignalListener('SIGUSR2', listener);
        G.clearTimeout(keep);
        go();
      };
      D.addSignalListener('SIGUSR2', listener);
    };
    host.post = function (json) {
      var init = { method: 'POST', headers: { authorization: 'Bearer ' + GATE.token, 'content-type': 'application/json' }, body: json };
      if (client) init.client = client;
      return realFetch(GATE.url + '/call', init).then(function (response) {
        return response.text().then(function (text) { return { status: response.status, text: text }; });
      }, function () { return { status: 0, text: '' }; });
    };
    host.locate = function (code) {
      var source = 'import "airlock-never:refuse"; export default (async function anonymous(\n) {\n' + code + '\n});';
      return import('data:application/javascript,' + encodeComponent(source)).then(function () { return undefined; }, function (error) {
        var text = StringCtor(error && (error.stack || error.message));
        var lines = text.split('\n');
        for (var i = lines.length - 1; i >= 0; i--) {
          if (lines[i].indexOf('data:') === -1) continue;
          var where = /:(\d+):(\d+)\)?\s*$/.exec(lines[i]);
          if (where) return { line: NumberCtor(where[1]) - HEADER_LINES, column: NumberCtor(where[2]) };
        }
        return undefined;
      });
    };
    G.addEventListener('unhandledrejection', function (event) { event.preventDefault(); });
    G.addEventListener('error', function (event) { event.preventDefault(); fail(describe(event.error)); });
    G.addEventListener('unload', function () { neverSettled(); });
  }

  function line(type, payload) {
    host.write(NONCE + type + payload + '\n');
  }

  function neverSettled() {
    if (finished) return;
    finished = true;
    line('${LINE_ERROR}', stringify({ kind: 'runtime', message: ${JSON.stringify(NEVER_SETTLES_MESSAGE)} }));
  }


  var framesOf = new WeakMap();

  function formatFrames(callSites) {
    var kept = [];
    for (var i = 0; i < callSites.length; i++) {
      var site = callSites[i];
      if (site.getScriptNameOrSourceURL() !== '${GUEST_FILENAME}') continue;
      var lineNumber = site.getLineNumber() - HEADER_LINES;
      if (!(lineNumber >= 1)) continue;
      var where = '${GUEST_FILENAME}:' + lineNumber + ':' + site.getColumnNumber();
      var name = site.getFunctionName();
      var prefix = site.isAsync() ? '    at async ' : '    at ';
      kept.push(name && name !== 'eval' && name !== 'anonymous' ? prefix + name + ' (' + where + ')' : prefix + where);
    }
    return kept.join('\n');
  }

  function prepareStackTrace(error, callSites) {
    var head;
    try { head = ErrorCtor.prototype.toString.call(error); } catch (inner) { head = 'Error'; }
    var frames = '';
    try { frames = formatFrames(callSites); } catch (inner) { frames = ''; }
    if (error !== null && (typeof error === 'object' || typeof error === 'function')) framesOf.set(error, frames);
    return frames ? head + '\n' + frames : head;
  }

  defineProperty(ErrorCtor, 'prepareStackTrace', { value: prepareStackTrace, writable: false, configurable: false, enumerable: false });

  function cleanStack(error) {
    try {
      void error.stack;
      var frames = framesOf.get(error);
      return frames === undefined ? '' : frames;
    } catch (inner) {
      return '';
    }
  }

  function cleanStackOf(error) {
    return cleanStack(error);
  }
${GUEST_COMMON_SOURCE}${GUEST_FORMAT_SOURCE}
  function messageOf(error) {
    try {
      return error instanceof ErrorCtor ? StringCtor(error.message) : formatValue(error);
    } catch (inner) {
      return 'unprintable error';
    }
  }

  function describe(error) {
    try {
      if (error instanceof ErrorCtor) {
        return { isError: true, name: StringCtor(error.name), message: StringCtor(error.message), stack: cleanStack(error) };
      }
      return { isError: false, text: formatValue(error) };
    } catch (inner) {
      return { isError: false, text: '[unprintable]' };
    }
  }

  function fail(description) {
    if (finished) return;
    finished = true;
    line('${LINE_ERROR}', stringify(description));
    host.exit(0);
  }

  function finish(value) {
    if (finished) return;
    var json;
    try {
      json = value === undefined ? undefined : stringify(value);
    } catch (error) {
      fail({ kind: 'runtime', message: 'The return value is not JSON-serialisable (' + messageOf(error) + ')' });
      return;
    }
    finished = true;
    if (json !== undefined && json.length > room) line('${LINE_ERROR}', stringify({ kind: 'output' }));
    else line('${LINE_RESULT}', json === undefined ? '' : json);
    host.exit(0);
  }

  function write(level, args) {
    if (finished) return;
    var text = formatArgs(args, room);
    line('${LINE_CONSOLE}', stringify([level, text]));
    room -= text.length + 1;
    if (room < 0) {
      finished = true;
      host.exit(0);
    }
  }

  var consoleObject = makeConsole(write);

  function makeMethod(operationId, name) {
    return async function (args) {
      var json = callJson(name, args, { operationId: operationId }, isToolOperation(operationId));
      var reply = await host.post(json);
      if (reply.status === 200) {
        try {
          var result = parse(reply.text);
          var out = { data: result.data === undefined ? null : result.data, error: result.error === undefined ? null : result.error, status: result.status };
          if (result.headers !== undefined) out.headers = result.headers;
          return out;
        } catch (error) {
          return { data: null, error: { message: 'The Airlock gate sent an unreadable answer' }, status: 0 };
        }
      }
      var reason = 'The Airlock gate could not be reached';
      if (reply.status !== 0) {
        reason = 'The Airlock gate refused the call (HTTP ' + reply.status + ')';
        try {
          var refusal = parse(reply.text);
          if (refusal && typeof refusal.error === 'string') reason += ': ' + refusal.error;
        } catch (error) {}
      }
      return { data: null, error: { message: reason }, status: 0 };
    };
  }

  var trees = [];
  function children(rootIndex, path) {
    var node = trees[rootIndex];
    if (node === undefined) node = trees[rootIndex] = parse(A.roots[rootIndex].shape);
    for (var p = 0; p < path.length; p++) node = node[path[p]];
    return node;
  }

  for (var r = 0; r < REMOVED.length; r++) {
    try {
      delete G[REMOVED[r]];
    } catch (error) {
      try { G[REMOVED[r]] = undefined; } catch (ignored) {}
    }
  }
  bindRoots(G, A.roots, makeMethod, children);
  define(G, 'console', consoleObject, false);

  var main;
  try {
    main = new AsyncFunction(A.code + '\n//# sourceURL=${GUEST_FILENAME}');
  } catch (error) {
    var description = describe(error);
    if (description.name === 'SyntaxError') description.kind = 'syntax';
    host.locate(A.code).then(function (where) {
      if (where) {
        description.line = where.line;
        description.column = where.column;
      }
      fail(description);
    }, function () { fail(description); });
    return;
  }
  function start() {
    line('${LINE_READY}', '');
    var started;
    try {
      started = main.call(undefined);
    } catch (error) {
      fail(describe(error));
      return;
    }
    PromiseCtor.resolve(started).then(finish, function (error) { fail(describe(error)); });
  }

  if (!A.hold) {
    start();
    return;
  }
  host.onGo(start);
  line('${LINE_HOLD}', '');
})`;

/** The prelude on one line. */
export const PRELUDE_ONE_LINE = PRELUDE_SOURCE.split('\n')
  .map((line) => line.trim())
  .filter((line) => line.length > 0)
  .join(' ');

/** The whole stdin program: one line, the prelude called with the run's input. */
export function buildGuestScript(input: GuestScriptInput): string {
  const argument = {
    runtime: input.runtime,
    nonce: input.nonce,
    code: input.code,
    roots: input.roots,
    gate: input.gate,
    outputBytes: input.outputBytes,
    ...(input.hold === undefined ? {} : { hold: input.hold }),
  };
  // U+2028/2029 are line terminators in JS source: escape them so the program stays on one line.
  const json = JSON.stringify(argument)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `${PRELUDE_ONE_LINE}(${json});\n`;
}
