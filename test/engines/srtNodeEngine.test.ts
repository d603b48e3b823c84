// The node engine under the srt wrapper (egress wrapper): the shared engine
// suite (test/helpers/subprocessSuite.ts). Apart from srtWrapper.test.ts so
// the engines tier runs it beside the others. Where srt's tools are missing
// it is one skipped suite naming the apt packages, and a failure under
// AIRLOCK_REQUIRE_ALL=1 (see srtWrapper.test.ts).
import { defineEngineSuite } from '../helpers/subprocessSuite.ts';
import { describeWithTools, SRT } from '../helpers/systemTools.ts';
import { nodeUnderSrt } from '../helpers/srtEngines.ts';

describeWithTools('srt on this machine: the node engine under it', SRT, () => {
  defineEngineSuite({
    name: 'node engine under srt (egress wrapper)',
    create: nodeUnderSrt,
  });
});
