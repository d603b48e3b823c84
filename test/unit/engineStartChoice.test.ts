// The engine choice a companion starts with (main/core/runtime/engines.ts checkEngineChoice): a saved choice that now
// needs an acknowledgement (engine node with egress none, issue 39 §10) starts on the stricter default and says so;
// the same choice given by a flag is refused, and with the acknowledgement it starts, bannered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkEngineChoice } from '../../main/core/runtime/engines.ts';
import type { Settings } from '../../main/core/config/settings.ts';
import type { Logger } from '../../main/core/log/logger.ts';

function fixture(values: Partial<Settings>) {
  const warnings: string[] = [];
  const logger = { warn: (m: string) => warnings.push(m), info: () => undefined } as unknown as Logger;
  const settings = { engine: 'quickjs', egress: undefined, allowUnrestrictedEgress: false, ...values } as Settings;
  return { settings, logger, warnings };
}

test('node with egress none saved in settings.json, unacknowledged: the companion starts on QuickJS and says why', () => {
  const { settings, logger, warnings } = fixture({ engine: 'node', egress: 'none' });
  const choice = checkEngineChoice(settings, logger, { engine: 'file', egress: 'file' });
  assert.deepEqual([settings.engine, settings.egress, choice.egress], ['quickjs', 'executor', 'executor']);
  assert.match(warnings.join('\n'), /settings\.json asks for engine node with egress none, which needs your acknowledgement .*started with engine quickjs/);
});

test('the same choice given by a flag is refused with its reason; acknowledged, it starts with its banner', () => {
  const flagged = fixture({ engine: 'node', egress: 'none' });
  assert.throws(() => checkEngineChoice(flagged.settings, flagged.logger, { engine: 'flag', egress: 'flag' }), /--allow-unrestricted-egress/);
  const acknowledged = fixture({ engine: 'node', egress: 'none', allowUnrestrictedEgress: true });
  const choice = checkEngineChoice(acknowledged.settings, acknowledged.logger, { engine: 'file', egress: 'file', allowUnrestrictedEgress: 'flag' });
  assert.equal(acknowledged.settings.engine, 'node');
  assert.equal(choice.egress, 'none');
  assert.match(acknowledged.warnings.join('\n'), /WARNING: engine node with egress none \(acknowledged\)/);
});

test('a saved choice the matrix forbids outright is still refused, never replaced', () => {
  const { settings, logger } = fixture({ engine: 'quickjs', egress: 'none' });
  assert.throws(() => checkEngineChoice(settings, logger, { engine: 'file', egress: 'file' }), /not a valid combination/);
});
