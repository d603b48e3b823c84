// Where audit records are forwarded to syslog (the setting --syslog): a URL
// naming the transport, the host and the port (telemetry/syslogForwarder.ts).
import { SettingError } from './settingDef.ts';

export interface SyslogTarget {
  transport: 'udp' | 'tcp' | 'tls';
  host: string;
  port: number;
}

/** Reads `udp://host:514`, `tcp://host:601`, `tls://host:6514`; throws naming what is wrong. */
export function parseSyslogUrl(raw: string): SyslogTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingError(`'${raw}' is not a URL (write udp://host:514, tcp://host:601 or tls://host:6514)`);
  }
  const transport = url.protocol.replace(/:$/, '');
  if (transport !== 'udp' && transport !== 'tcp' && transport !== 'tls') throw new SettingError(`'${url.protocol}' is not udp:, tcp: or tls:`);
  const defaults = { udp: 514, tcp: 601, tls: 6514 };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new SettingError(`'${raw}' names no host`);
  return { transport, host, port: url.port ? Number(url.port) : defaults[transport] };
}
