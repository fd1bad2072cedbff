// Response serializers, compiled once per process. Fastify compiles one per route and status with
// fast-json-stringify at every start, on its own copies of the schemas: about 0.3 s of CPU for this app,
// paid again by every app a process builds (a test file builds many). A serializer depends only on the
// response schema and the shared schemas it may reference, so it is kept under their JSON.
import SerializerSelectorModule from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelectorModule.SerializerSelector>;
type Serializer = ReturnType<ReturnType<Factory>>;

const compileWithFastJsonStringify: Factory = (SerializerSelectorModule.default ?? SerializerSelectorModule)();
const compiled = new Map<string, Serializer>();

/** Fastify calls this once per plugin context with the shared schemas (`addSchema`) visible there. */
export function buildSerializer(externalSchemas?: unknown, options?: Parameters<Factory>[1]): ReturnType<Factory> {
  const compile = compileWithFastJsonStringify(externalSchemas, options);
  const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
  return (route) => {
    const key = `${context}\n${JSON.stringify(route.schema)}`;
    let serializer = compiled.get(key);
    if (!serializer) {
      serializer = compile(route);
      compiled.set(key, serializer);
    }
    return serializer;
  };
}
