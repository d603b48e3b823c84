// A script as a person reads it: highlighted (highlight.js, JavaScript only),
// wrapped rather than scrolled sideways, with line numbers. It never scrolls
// on its own, so the surrounding view (the prompt, the Activity detail) is
// the one scroll region. highlight.js escapes the text it marks up, so what a
// model wrote is shown, never run.
import { useMemo } from 'react';
import { highlightLines } from './highlightScript.ts';
import './ScriptView.css';

export function ScriptView({ code, label }: { code: string; label: string }) {
  const lines = useMemo(() => highlightLines(code), [code]);
  return (
    <figure className="script-view" aria-label={label}>
      <ol className="hljs">
        {lines.map((line, i) => (
          // highlight.js output: the text is escaped, only its spans are markup.
          <li key={i} dangerouslySetInnerHTML={{ __html: line || ' ' }} />
        ))}
      </ol>
    </figure>
  );
}
