// Small pieces of OpenAPI documents that tests build by hand.

/** A `responses` object whose 200 returns JSON of `schema`. */
export function okJson(schema: Record<string, unknown>): Record<string, unknown> {
  return { 200: { description: 'ok', content: { 'application/json': { schema } } } };
}
