// A large OpenAPI document made on the spot, for tests of what large APIs
// cost: `operations` operations over resources that share component schemas
// by $ref (as real documents do), in groups of five per resource.
export function largeDocument(operations: number, title = 'Large API'): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    Page: { type: 'object', properties: { next: { type: 'string' }, total: { type: 'integer' } } },
  };
  const resources = Math.ceil(operations / 5);
  let made = 0;
  for (let r = 0; r < resources && made < operations; r++) {
    const name = `Thing${r}`;
    schemas[name] = {
      type: 'object',
      description: `A thing of kind ${r}`,
      properties: {
        id: { type: 'string' },
        label: { type: 'string' },
        page: { $ref: '#/components/schemas/Page' },
        parent: { $ref: `#/components/schemas/${name}` },
      },
    };
    const ref = { $ref: `#/components/schemas/${name}` };
    const body = { required: true, content: { 'application/json': { schema: ref } } };
    const ok = (schema: unknown) => ({ 200: { description: 'ok', content: { 'application/json': { schema } } } });
    const collection: Record<string, unknown> = {};
    const item: Record<string, unknown> = { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] };
    const add = (target: Record<string, unknown>, method: string, verb: string, operation: Record<string, unknown>) => {
      if (made >= operations) return;
      target[method] = { operationId: `things${r}.${verb}`, summary: `${verb} things of kind ${r}`, tags: [`kind${r % 50}`], ...operation };
      made++;
    };
    add(collection, 'get', 'list', { parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }], responses: ok({ type: 'array', items: ref }) });
    add(collection, 'post', 'create', { requestBody: body, responses: ok(ref) });
    add(item, 'get', 'get', { responses: ok(ref) });
    add(item, 'patch', 'update', { requestBody: body, responses: ok(ref) });
    add(item, 'delete', 'delete', { responses: { 204: { description: 'gone' } } });
    paths[`/kinds/${r}/things`] = collection;
    paths[`/kinds/${r}/things/{id}`] = item;
  }
  return { openapi: '3.1.0', info: { title, version: '1' }, servers: [{ url: 'https://large.example.test' }], paths, components: { schemas } };
}
