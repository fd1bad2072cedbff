// Building blocks of route schemas whose TypeScript type TypeBox cannot see on its own. Routes get their
// request types from their schemas through @fastify/type-provider-typebox, which infers (TypeBox 1.x)
// from a schema's JSON keywords; the declared types below spell those keywords out (`enum` and `anyOf`
// as tuples) so that both that inference and @sinclair/typebox's `Static` see the union.
import { Type, type SchemaOptions, type TLiteral, type TSchema, type TUnion, type TUnsafe } from '@sinclair/typebox';

/** A string of one of `values`: the JSON Schema of `Type.String({ enum })`, typed as the union. */
export function StringEnum<const V extends readonly string[]>(values: V, options: SchemaOptions = {}): TUnsafe<V[number]> & { type: 'string'; enum: [...V] } {
  return Type.Unsafe<V[number]>(Type.String({ enum: [...values], ...options })) as TUnsafe<V[number]> & { type: 'string'; enum: [...V] };
}

/** One of `values` as `anyOf` of string literals (the JSON Schema of `Type.Union(values.map(Type.Literal))`). */
export function LiteralUnion<const V extends readonly string[]>(values: V, options: SchemaOptions = {}): TUnion<TLiteral<V[number]>[]> & { anyOf: { -readonly [K in keyof V]: { const: V[K] } } } {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as TUnion<TLiteral<V[number]>[]> & { anyOf: { -readonly [K in keyof V]: { const: V[K] } } };
}

/** `schema` or null. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A 204 answer: `{ type: 'null' }` in the document, and `reply.code(204).send()` in the handler. */
export const NoContent = Type.Unsafe<void>(Type.Null());
