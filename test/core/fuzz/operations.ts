// The operations the fuzzer attacks, read from the server's own /openapi.json: every method and path,
// its path and query parameters, and the JSON schema of its body (null when it takes none).

export interface Parameter {
  name: string;
  schema: Record<string, unknown>;
}

export interface Operation {
  method: string;
  /** The OpenAPI template, `/v1/sandboxes/{id}`. */
  path: string;
  pathParams: Parameter[];
  query: Parameter[];
  bodySchema: Record<string, unknown> | null;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: (Parameter & { in: string })[]; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>>;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map(({ name, schema }) => ({ name, schema })),
        query: parameters.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
        bodySchema: operation.requestBody?.content['application/json']?.schema ?? null,
      });
    }
  }
  return operations;
}
