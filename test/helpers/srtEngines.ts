// The two subprocess engines under the srt wrapper, as the engine and memory
// suites build them (test/engines/srtWrapper.test.ts, srtNodeEngine.test.ts,
// srtDenoEngine.test.ts).
import { join } from 'node:path';
import { createNodeEngine } from '../../main/core/sandbox/node/nodeEngine.ts';
import { createDenoEngine } from '../../main/core/sandbox/deno/denoEngine.ts';
import { findDeno } from '../../main/core/sandbox/deno/findDeno.ts';
import type { SuiteContext } from './subprocessSuite.ts';

const deno = findDeno();
/** Used only where DENO is required. */
export const denoPath = deno.found ? deno.path : '';

export const nodeUnderSrt = (ctx: SuiteContext) => createNodeEngine({ proxy: ctx.proxy, egress: 'wrapper', tmpDir: ctx.tmpDir, srt: { dataDir: ctx.dataDir } });

export const denoUnderSrt = (ctx: SuiteContext) =>
  createDenoEngine({ proxy: ctx.proxy, egress: 'wrapper', denoPath, denoDir: join(ctx.tmpDir, 'deno-dir'), tmpDir: ctx.tmpDir, srt: { dataDir: ctx.dataDir } });
