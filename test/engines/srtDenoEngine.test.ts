// The deno engine under the srt wrapper (egress wrapper): the shared engine
// suite (test/helpers/subprocessSuite.ts). Apart from srtWrapper.test.ts so
// the engines tier runs it beside the others. Where srt's tools (or Deno) are
// missing it is one skipped suite naming what to install, and a failure under
// AIRLOCK_REQUIRE_ALL=1 (see srtWrapper.test.ts).
import { defineEngineSuite } from '../helpers/subprocessSuite.ts';
import { DENO, describeWithTools, SRT } from '../helpers/systemTools.ts';
import { denoUnderSrt } from '../helpers/srtEngines.ts';

describeWithTools('srt on this machine: the deno engine under it', SRT, () => {
  defineEngineSuite({
    name: 'deno engine under srt (egress wrapper)',
    needs: [DENO],
    create: denoUnderSrt,
  });
});
