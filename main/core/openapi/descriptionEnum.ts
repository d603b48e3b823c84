// Many documents list a field's values only in its description ("One of
// `asc`, `desc`", "Possible values are: - `a` - `b`", "Valid values are
// <code>x</code> and <code>y</code>") instead of an `enum`. These are read out
// so a card shows them like an enum. Conservative on purpose: a list follows
// a known phrase directly, has at least two values, and bare (unquoted) words
// count only after a strong phrase and when the sentence ends with them.

const STRONG = String.raw`one of|(?:possible|allowed|valid|accepted|acceptable|supported|legal|available|permitted)\s+values?`;
const WEAK = String.raw`can either be|can be either|can be|must be either|must be|(?<=(?:[-–—:(]|\bis|\bbe)\s+)either`;
const TRIGGER = new RegExp(
  String.raw`\b(?:(${STRONG})|(${WEAK}))(?:\s+(?:is|are|include|includes))?(?:\s+(?:one\s+of\s+)?(?:the\s+)?following)?(?:\s+(?:values?|options?))?(?:\s+(?:is|are))?\s*:?[ \t]*(?:\r?\n[ \t]*)*`,
  'gi',
);
const QUOTED = /^(?:`([^`\n]{1,60})`|"([^"\n]{0,60})"|'([^'\n]{1,60})'|\*\*([^*\n]{1,60})\*\*|\*([^*\s][^*\n]{0,59})\*|“([^”\n]{1,60})”)/;
const BARE = /^([A-Za-z0-9](?:[\w.:-]{0,58}\w)?)(?![\w(])/;
const SEPARATOR = /^(?:\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+|\s*[|/]\s*)/;
const BULLET_SPLIT = /\r?\n\s*[-*•]\s+|\s[*•]\s+/;
const MAX_VALUES = 40;

/** The values a description lists for its field, or undefined when it lists none. */
export function descriptionEnum(description: string | undefined): string[] | undefined {
  if (!description || description.length > 6000) return undefined;
  const text = description
    .replace(/<code>([\s\S]*?)<\/code>/gi, '`$1`')
    .replace(/<\/?(?:br|p|li|ul|ol)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  for (const m of text.matchAll(TRIGGER)) {
    // "The file's `purpose` must be one of …": the values belong to what the sentence names, not to this field.
    const sentence = text
      .slice(0, m.index)
      .split(/[.!?]\s|\n/)
      .at(-1)!;
    if (/`[^`]+`|\*\*[^*]+\*\*/.test(sentence)) continue;
    const rest = text.slice(m.index + m[0].length, m.index + m[0].length + 3000);
    const values = bulletList(rest) ?? inlineList(rest, m[1] !== undefined);
    if (values) return values;
  }
  return undefined;
}

function token(text: string, bareAllowed: boolean): { value: string; length: number; bare: boolean } | undefined {
  const q = QUOTED.exec(text);
  if (q) return { value: q.slice(1).find((v) => v !== undefined)!, length: q[0].length, bare: false };
  if (!bareAllowed) return undefined;
  const b = BARE.exec(text);
  return b ? { value: b[1]!, length: b[0].length, bare: true } : undefined;
}

/** `a`, `b` or `c` — quoted values, or bare words when the sentence ends with the list. */
function inlineList(text: string, strong: boolean): string[] | undefined {
  const values: string[] = [];
  let rest = text;
  let bare = false;
  while (values.length < MAX_VALUES) {
    const t = token(rest, strong);
    if (!t) break;
    values.push(t.value);
    bare ||= t.bare;
    rest = rest.slice(t.length);
    const sep = SEPARATOR.exec(rest);
    if (!sep) break;
    rest = rest.slice(sep[0].length);
  }
  if (values.at(-1) === 'etc') values.pop();
  if (values.length < 2) return undefined;
  if (bare && !/^\s*(?:\.(?:\s|$)|$|\r?\n)/.test(rest)) return undefined;
  // "one of `a` or `b` is required" names fields, not values.
  if (/^\s+(?:is|are|must|should|may|can)\b/.test(rest)) return undefined;
  return unique(values);
}

/** A list of items, each starting with its value: bullets ("- `a` for …"), or `'a' - …; 'b' - …`. */
function bulletList(text: string): string[] | undefined {
  let items: string[];
  if (/^[-*•]\s/.test(text)) items = text.replace(/^[-*•]\s+/, '').split(BULLET_SPLIT);
  else if (QUOTED.test(text) && /^\S+\s*(?:-|–|—|:)\s/.test(text) && text.includes(';')) items = text.split(/;\s*/);
  else return undefined;
  const values: string[] = [];
  for (const item of items.slice(0, MAX_VALUES)) {
    const t = token(item, true);
    if (!t || (t.bare && !/^\s*(?:$|[:=–—-])/.test(item.slice(t.length)))) break;
    values.push(t.value);
  }
  return values.length >= 2 ? unique(values) : undefined;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
