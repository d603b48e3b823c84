// Reading a document as a new API would be read, before it is saved: the
// same caps and external-$ref rules as serving it, and a broken document
// named with its line and column. The APIs screen's "Add an API" and
// `airlock apis add` both check a document this way. It is prepared as a
// served API is (in the companion, by its worker, so serving never waits),
// and the store it leaves makes serving it right after a matter of opening.
import { isAbsolute } from 'node:path';
import { AirlockError } from '../util/errors.ts';
import { isUrl } from '../openapi/loadDocument.ts';
import { checkAllowEntry } from '../openapi/externalRefs.ts';
import { formatAuthScheme, inferAuthScheme } from '../config/auth.ts';
import type { PreparedApi, PrepareProgress } from '../search/preparedApi.ts';
import type { PrepareRequest } from '../search/preparation.ts';
import type { DocumentSummary } from '../../../contract/profiles.ts';

export async function inspectDocument(
  spec: string,
  options: {
    cacheDir: string;
    /** Prepares and opens the document: the companion's worker, or (in the CLI) this process. */
    prepare(request: PrepareRequest): Promise<PreparedApi>;
    allowExternalRefs?: string[];
    maxBytes?: number;
    onProgress?(progress: PrepareProgress): void;
  },
): Promise<DocumentSummary> {
  for (const entry of options.allowExternalRefs ?? []) {
    const problem = checkAllowEntry(entry);
    if (problem) throw new AirlockError('usage', `allowExternalRefs: ${JSON.stringify(entry)} ${problem}`);
  }
  if (!isUrl(spec) && !isAbsolute(spec)) throw new AirlockError('usage', `"${spec}" is neither an http(s) URL nor an absolute file path`);
  const started = performance.now();
  const prepared = await options.prepare({
    spec,
    cacheDir: options.cacheDir,
    // A URL is fetched again: what is added is what it serves now.
    ...(isUrl(spec) ? { refresh: true } : {}),
    ...(options.allowExternalRefs ? { allowExternalRefs: options.allowExternalRefs } : {}),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  try {
    const { catalogue, security, origin } = prepared;
    return {
      title: catalogue.title,
      version: catalogue.version,
      operations: catalogue.operations.length,
      mutations: catalogue.operations.filter((op) => op.mutation).length,
      servers: catalogue.servers,
      auth: formatAuthScheme(inferAuthScheme(catalogue.securitySchemes, security)),
      warnings: catalogue.warnings,
      fromCache: origin.fromCache === true,
      loadMs: Math.round(performance.now() - started),
    };
  } finally {
    prepared.close();
  }
}
