// Text from the core (an error, a reason, a hint, a setting's description)
// marks commands and names with `backticks`, as the README and --help do.
// This shows each such span as <code> and the rest as plain text, so no
// literal backtick reaches the screen. Nothing else is interpreted: the text
// never becomes markup.
import { Fragment } from 'react';
import { codeSpans } from './codeSpans.ts';

export function InlineText({ text }: { text: string | undefined }) {
  if (!text) return null;
  return <>{codeSpans(text).map((p, i) => (p.code ? <code key={i}>{p.text}</code> : <Fragment key={i}>{p.text}</Fragment>))}</>;
}
