// How far loading an API (or reading a document) is, in words: what the
// phase does, the percentage, and the operations so far.
import type { ApiProgress } from '../../../../contract/apis.ts';

const PHASE_WORDS: Record<ApiProgress['phase'], string> = {
  reading: 'reading the document',
  parsing: 'parsing it',
  resolving: 'resolving its references',
  cataloguing: 'listing its operations',
  indexing: 'indexing them for search',
  writing: 'storing what was prepared',
  opening: 'opening what was prepared',
};

/** `indexing them for search, 45% (10,000 of 22,361 operations)` */
export function progressWords(p: ApiProgress): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const operations =
    p.operations === undefined ? '' : ` (${count(p.operations)}${p.total !== undefined && p.total !== p.operations ? ` of ${count(p.total)}` : ''} operations)`;
  return `${PHASE_WORDS[p.phase]}, ${Math.round(p.percent)}%${operations}`;
}
