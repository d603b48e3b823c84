// How an API is named in sentences: "the OpenAgenda API", never "the
// OpenAgenda API API" when the document's title already says so.

export function apiName(title: string): string {
  const t = title.trim() || 'API';
  return /\bAPI\s*$/i.test(t) ? t : `${t} API`;
}
