import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainText } from '../../main/core/search/plainText.ts';

test('cards read descriptions as plain text: HTML and Markdown go, words and links stay', () => {
  assert.equal(
    plainText('Lists <b>events</b>.<br/>See <a href="https://docs.test/events">the docs</a> &amp; more.'),
    'Lists events. See the docs (https://docs.test/events) & more.',
  );
  assert.equal(
    plainText('## Events\n\nReturns **all** the `events` of an _agenda_. See [paging](https://docs.test/paging).'),
    'Events\n\nReturns all the events of an agenda. See paging (https://docs.test/paging).',
  );
  assert.equal(plainText('- one\n- two\n> quoted'), 'one\ntwo\nquoted');
  assert.equal(plainText('snake_case_name and a*b*c stay'), 'snake_case_name and a*b*c stay');
  assert.equal(plainText('<https://x.test> is kept'), 'https://x.test is kept', 'a Markdown autolink is a link, not a tag');
});
