// Reading a document as a new API would be read, before it is saved: the
// same download caps and external-$ref rules as serving it, and a broken
// document named with its line and column. The APIs screen's "Add an API"
// and `airlock apis add` both check a document this way.
import { isAbsolute } from 'node:path';
import { AirlockError } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import { buildCatalogue } from '../openapi/catalogue.ts';
import { isUrl, loadApiDocument } from '../openapi/loadDocument.ts';
import { checkAllowEntry } from '../openapi/externalRefs.ts';
import { formatAuthScheme, inferAuthScheme } from '../config/auth.ts';
import type { DocumentSummary } from '../../../contract/profiles.ts';

export async function inspectDocument(
  spec: string,
  options: { cacheDir: string; logger: Logger; allowExternalRefs?: string[]; fetch?: typeof fetch },
): Promise<DocumentSummary> {
  for (const entry of options.allowExternalRefs ?? []) {
    const problem = checkAllowEntry(entry);
    if (problem) throw new AirlockError('usage', `allowExternalRefs: ${JSON.stringify(entry)} ${problem}`);
  }
  if (!isUrl(spec) && !isAbsolute(spec)) throw new AirlockError('usage', `"${spec}" is neither an http(s) URL nor an absolute file path`);
  const loaded = await loadApiDocument(spec, {
    cacheDir: options.cacheDir,
    refresh: true,
    logger: options.logger.child('spec'),
    ...(options.allowExternalRefs ? { allowExternalRefs: options.allowExternalRefs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const catalogue = buildCatalogue(loaded.document, loaded.refNames);
  return {
    title: catalogue.title,
    version: catalogue.version,
    operations: catalogue.operations.length,
    mutations: catalogue.operations.filter((op) => op.mutation).length,
    servers: catalogue.servers,
    auth: formatAuthScheme(inferAuthScheme(catalogue.securitySchemes, loaded.document.security)),
    warnings: catalogue.warnings,
    fromCache: loaded.origin.fromCache === true,
    loadMs: Math.round(loaded.loadMs),
  };
}
