// The process a companion prepares an API document in (Linux: found in
// /proc), so a test can hold it stopped and know that the API is loading
// whatever the speed of the machine.
import { readFileSync, readdirSync } from 'node:fs';

/** The preparing process among a process's children, if one runs. */
export function preparingChild(pid: number): number | undefined {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
  return children.find((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('prepareProcess');
    } catch {
      return false;
    }
  });
}

/** Why a test that holds the preparing process cannot run here, or false. */
export const noProc = process.platform !== 'linux' ? 'finds the preparing process in /proc (Linux)' : false;
