// Audit records forwarded to syslog (issue 40 §3): how audit records reach
// an organisation's SIEM. Each record, once committed to the local audit (the
// source of truth) and redacted as it is stored, becomes one RFC 5424 message
// — facility 13 (log audit), severity notice, or warning for a call that was
// refused or denied; APP-NAME airlock, MSGID the record's kind (tool, api,
// prune); structured data [airlock@32473 seq= kind= tool= outcome= decision=
// client= profile= operation= run=]; the record as JSON for its message —
// sent over UDP (one datagram each, RFC 5426), TCP (RFC 6587 octet counting)
// or TLS (RFC 5425; the system's CAs, NODE_EXTRA_CA_CERTS for a private one).
//
// A syslog that is down never holds a call up: records wait in a bounded
// queue (1000) while the connection is retried (1 s, doubling to 30 s); past
// the bound the newest are dropped, and the drops are counted and said in the
// log. Written by hand: the format is a line, and the npm syslog clients are
// unmaintained or speak only RFC 3164.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { hostname } from 'node:os';
import type { AuditEntry } from '../audit/types.ts';
import type { Logger } from '../log/logger.ts';
import type { SyslogTarget } from '../config/syslogTarget.ts';

/** The example Private Enterprise Number RFC 5612 reserves for documentation: the SD-ID of Airlock's fields. */
const SD_ID = 'airlock@32473';
const FACILITY_LOG_AUDIT = 13;
const SEVERITY = { warning: 4, notice: 5 } as const;
const MAX_QUEUE = 1_000;
/** A UDP datagram's message is capped (a syslog relay takes 8 KiB at least; the rest of the record stays in the local audit). */
const MAX_UDP_BYTES = 8_192;

/** An SD-PARAM value: `"`, `\` and `]` escaped (RFC 5424 §6.3.3). */
const sdValue = (value: string) => value.replace(/[\\"\]]/g, (c) => `\\${c}`);
/** A header field: printable US-ASCII without spaces, at most `max` characters, or the nil value. */
const headerField = (value: string, max: number) => value.replace(/[^\x21-\x7e]/g, '_').slice(0, max) || '-';

/** One audit record as an RFC 5424 message. */
export function formatSyslogRecord(entry: AuditEntry, host: string = hostname(), pid: number = process.pid): string {
  const fields = entry as unknown as Record<string, unknown>;
  const refused = fields.decision === 'refused' || fields.decision === 'denied' || fields.outcome === 'refused';
  const pri = FACILITY_LOG_AUDIT * 8 + (refused ? SEVERITY.warning : SEVERITY.notice);
  const params: [string, unknown][] = [
    ['seq', entry.seq],
    ['kind', entry.kind],
    ['tool', fields.tool],
    ['outcome', fields.outcome],
    ['decision', fields.decision],
    ['client', fields.clientName],
    ['profile', fields.profile],
    ['operation', fields.operationId],
    ['run', fields.runId],
    ['hash', entry.hash],
  ];
  const sd = params
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}="${sdValue(String(v))}"`)
    .join(' ');
  const time = typeof fields.time === 'string' ? fields.time : new Date().toISOString();
  return `<${pri}>1 ${time} ${headerField(host, 255)} airlock ${pid} ${entry.kind} [${SD_ID} ${sd}] \ufeff${JSON.stringify(entry)}`;
}

export interface SyslogForwarder {
  /** Queues one committed record; never waits, never throws. */
  forward(entry: AuditEntry): void;
  /** Records dropped so far (queue full, or a datagram that could not be sent). */
  dropped(): number;
  /** Sends what is queued (bounded in time) and closes. */
  close(): Promise<void>;
}

export function createSyslogForwarder(target: SyslogTarget, logger: Logger): SyslogForwarder {
  const log = logger.child('syslog');
  let dropped = 0;
  let saidDropped = 0;
  const drop = (count: number) => {
    dropped += count;
    // Said once for the first drop, then at every hundred: the log is not flooded while syslog is down.
    if (dropped - saidDropped >= 100 || saidDropped === 0) {
      saidDropped = dropped;
      log.warn(`${dropped} audit record(s) not forwarded to syslog ${target.transport}://${target.host}:${target.port} so far (the local audit keeps them)`);
    }
  };

  if (target.transport === 'udp') {
    const socket: UdpSocket = createSocket(target.host.includes(':') ? 'udp6' : 'udp4');
    socket.on('error', (error) => log.warn(`syslog over udp: ${error.message}`));
    socket.unref();
    return {
      forward(entry) {
        let message = Buffer.from(formatSyslogRecord(entry));
        if (message.length > MAX_UDP_BYTES) message = message.subarray(0, MAX_UDP_BYTES);
        socket.send(message, target.port, target.host, (error) => {
          if (error) drop(1);
        });
      },
      dropped: () => dropped,
      close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
    };
  }

  // TCP and TLS: one connection, kept; records framed by octet counting.
  const queue: Buffer[] = [];
  let socket: Socket | undefined;
  let connected = false;
  let retryMs = 1_000;
  let retry: NodeJS.Timeout | undefined;
  let closing = false;
  const open = () => {
    if (closing || socket) return;
    const s =
      target.transport === 'tls'
        ? tlsConnect({ host: target.host, port: target.port, servername: target.host })
        : tcpConnect({ host: target.host, port: target.port });
    socket = s;
    s.unref();
    s.setNoDelay(true);
    s.on(target.transport === 'tls' ? 'secureConnect' : 'connect', () => {
      connected = true;
      retryMs = 1_000;
      log.info(`forwarding audit records to syslog ${target.transport}://${target.host}:${target.port}`);
      flush();
    });
    s.on('drain', flush);
    s.on('error', (error) => log.debug(`syslog over ${target.transport}: ${error.message}`));
    s.on('close', () => {
      socket = undefined;
      connected = false;
      if (closing) return;
      retry = setTimeout(() => {
        retry = undefined;
        open();
      }, retryMs).unref();
      retryMs = Math.min(retryMs * 2, 30_000);
    });
  };
  const flush = () => {
    while (connected && socket && queue.length > 0) {
      const frame = queue.shift()!;
      if (!socket.write(frame)) return;
    }
  };
  open();
  return {
    forward(entry) {
      if (queue.length >= MAX_QUEUE) return drop(1);
      const message = Buffer.from(formatSyslogRecord(entry));
      queue.push(Buffer.concat([Buffer.from(`${message.length} `), message]));
      if (connected) flush();
      else open();
    },
    dropped: () => dropped,
    async close() {
      closing = true;
      if (retry) clearTimeout(retry);
      const s = socket;
      if (!s) return;
      flush();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (s.destroy(), resolve()), 2_000);
        timer.unref();
        s.end(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
