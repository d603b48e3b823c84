// How an MCP server's tools will be offered (issue 20): their direct names
// (`<server>__<tool>`, valid, short enough for Claude Code's prefix,
// shortened the same way every time, a collision refused — never a silent
// `_2`), and what a call does by default (deny before review; a read-only
// tool allowed; anything else asks a person).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIRECT_NAME_MAX, directToolName, directToolNames } from '../../main/core/upstream/toolNames.ts';
import { toolPolicy } from '../../main/core/upstream/toolPolicy.ts';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

test('a direct name is <server>__<tool>, valid, and leaves room for mcp__airlock__', () => {
  assert.equal(DIRECT_NAME_MAX, 50);
  assert.equal(directToolName({ server: 'fs', tool: 'write_file' }), 'fs__write_file');
  assert.equal(directToolName({ server: 'github', tool: 'repos.get/contents' }), 'github__repos_get_contents');
  const long = { server: 'filesystem-on-the-nas', tool: 'list_directory_with_sizes_and_modification_times' };
  const name = directToolName(long);
  assert.ok(name.length <= DIRECT_NAME_MAX && VALID.test(name) && VALID.test(`mcp__airlock__${name}`), name);
  assert.equal(directToolName(long), name, 'the same every time');
  assert.notEqual(directToolName({ ...long, tool: `${long.tool}_2` }), name, 'and two long names that begin alike stay apart');
});

test('two tools that would share a name are both refused, saying which; the others are named', () => {
  const { names, collisions } = directToolNames([
    { server: 'a', tool: 'x.y' },
    { server: 'a', tool: 'x_y' },
    { server: 'a', tool: 'other' },
  ]);
  assert.deepEqual([...names.values()], ['a__other']);
  assert.equal(collisions.length, 1);
  assert.match(collisions[0]!, /a's "x\.y" and a's "x_y" would both be a__x_y: neither is offered directly/);
});

test('by default: deny before review, the person’s policy first, a read-only tool allowed, the rest ask', () => {
  assert.equal(toolPolicy({ reviewed: false, annotations: { readOnlyHint: true }, toolPolicy: 'allow' }), 'deny');
  assert.equal(toolPolicy({ reviewed: true, annotations: { readOnlyHint: true } }), 'allow');
  assert.equal(toolPolicy({ reviewed: true, annotations: { destructiveHint: false } }), 'ask', 'not read-only: it writes');
  assert.equal(toolPolicy({ reviewed: true }), 'ask', 'a tool that says nothing may destroy');
  assert.equal(toolPolicy({ reviewed: true, annotations: { readOnlyHint: true }, serverDefault: 'ask' }), 'ask');
  assert.equal(toolPolicy({ reviewed: true, serverDefault: 'ask', toolPolicy: 'deny' }), 'deny');
});
