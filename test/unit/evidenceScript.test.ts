// The script as the approval prompt and Activity show it: one highlighted
// line per script line, each line's markup balanced on its own, and what a
// model wrote shown as text, never as markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
// Loaded by a computed path: highlight.js's types pull in the DOM library, which the Node typecheck must not see.
const highlighter = '../../renderer/src/components/highlightScript.ts';
const { highlightLines } = (await import(highlighter)) as { highlightLines(code: string): string[] };

const balanced = (html: string) => (html.match(/<span/g) ?? []).length === (html.match(/<\/span>/g) ?? []).length;
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');

test('one line per script line, each balanced, keywords marked, text unchanged', () => {
  const code = '/* a comment\n   over two lines */\nconst r = await api.events.list({ query: { q: `multi\nline` } });\nreturn r.data;';
  const lines = highlightLines(code);
  assert.equal(lines.length, code.split('\n').length);
  for (const line of lines) assert.ok(balanced(line), line);
  assert.deepEqual(lines.map(text), code.split('\n'));
  assert.match(lines[2]!, /<span class="hljs-keyword">const<\/span>/);
  assert.match(lines[1]!, /^<span class="hljs-comment">/, 'the comment goes on on its second line');
});

test('markup in a script is shown as text', () => {
  const code = `const x = "<img src=x onerror=alert(1)>"; // </span><script>alert(2)</script>`;
  const [line] = highlightLines(code);
  assert.ok(!/<img|<script/.test(line!), line);
  assert.equal(text(line!), code);
});
