// What a terminal may be shown of text that comes from elsewhere (a server's
// words, a tool's name, its stderr): no control characters, so no escape
// sequence can rewrite the screen or the clipboard, and no bidi override can
// make a line read other than it is.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** One line, printable. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, '\ufffd');
}

/** Several lines, each printable, the line breaks kept. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
