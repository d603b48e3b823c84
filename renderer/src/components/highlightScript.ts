// JavaScript highlighting for scripts a person reads (highlight.js core with
// the JavaScript grammar only), as one HTML string per line: a span that
// crosses a line break (a block comment, a template string) is closed at the
// end of each line and reopened on the next, so every line stands alone.
// highlight.js escapes the text; only its own spans are markup.
import hljs from 'highlight.js/lib/core';
import javascript from 'highlight.js/lib/languages/javascript';

hljs.registerLanguage('javascript', javascript);

export function highlightLines(code: string): string[] {
  const html = hljs.highlight(code, { language: 'javascript', ignoreIllegals: true }).value;
  const lines: string[] = [];
  const open: string[] = [];
  for (const raw of html.split('\n')) {
    const line = open.join('') + raw;
    for (const m of raw.matchAll(/<span[^>]*>|<\/span>/g)) {
      if (m[0] === '</span>') open.pop();
      else open.push(m[0]);
    }
    lines.push(line + '</span>'.repeat(open.length));
  }
  return lines;
}
