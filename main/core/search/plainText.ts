// Documents write descriptions in Markdown or HTML; a card is plain text.
// Tags and markup go, the words stay, and a link keeps its text and its
// address ("the docs (https://…)"), so nothing a model needs is lost.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

export function plainText(text: string): string {
  return (
    text
      // HTML links, then every other tag (a line break or paragraph becomes a space).
      .replace(/<a\b[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi, (_, href: string, label: string) => linkText(stripTags(label), href))
      .replace(/<(https?:\/\/[^>\s]+)>/gi, '$1')
      .replace(/<\/?(br|p|div|li|ul|ol|h[1-6]|tr|td|table)\b[^>]*>/gi, ' ')
      .replace(/<[^>]+>/g, '')
      // Markdown: images and links, code fences and spans, emphasis, headings, list markers, quotes.
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_, label: string, href: string) => linkText(label, href))
      .replace(/```[a-z]*\n?/gi, '')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/(\*\*|__)(.+?)\1/g, '$2')
      .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
      .replace(/^\s{0,3}#{1,6}\s+/gm, '')
      .replace(/^\s{0,3}(?:[-*+]|\d+\.)\s+/gm, '')
      .replace(/^\s{0,3}>\s?/gm, '')
      .replace(/&(#39|[a-z]+);/gi, (m, name: string) => ENTITIES[name.toLowerCase()] ?? m)
  );
}

function stripTags(html: string): string {
  return html.replace(/<[^>]+>/g, '');
}

function linkText(label: string, href: string): string {
  const text = label.trim();
  return !text || text === href ? href : `${text} (${href})`;
}
