// Text from the core marks commands and names with `backticks` (as the README
// and --help do): the pieces a component shows as plain text and as code.

/** The text split at its `code` spans: [text, code, text, code, …]. An unpaired backtick (in a value someone typed) stays as it is. */
export function codeSpans(text: string): { code: boolean; text: string }[] {
  return text
    .split(/`([^`\n]+)`/)
    .map((part, i) => ({ code: i % 2 === 1, text: part }))
    .filter((p) => p.text !== '');
}
