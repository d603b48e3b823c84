// Where each client keeps its config in a test's home, and putting one there
// (the client "installed": its folder, and its file when text is given).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CLIENTS, type ClientEnv } from '../../main/core/clients/clientCatalog.ts';

export function clientFiles(env: ClientEnv): { fileOf(id: string): string; install(id: string, text?: string): string } {
  const fileOf = (id: string) => CLIENTS.find((c) => c.id === id)!.paths(env)[0]!;
  return {
    fileOf,
    install(id, text) {
      const file = fileOf(id);
      mkdirSync(dirname(file), { recursive: true });
      if (text !== undefined) writeFileSync(file, text);
      return file;
    },
  };
}
