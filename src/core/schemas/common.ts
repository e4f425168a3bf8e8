import { Type, type TLiteral, type TUnion } from '@sinclair/typebox';

/** A string enum as a union of literals: validates, documents (anyOf const) and types. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
}

export const IsoDate = Type.String({ format: 'date-time', description: 'ISO 8601 date-time' });
export const EpochMs = Type.Number({ description: 'Epoch milliseconds' });

export const ErrorBody = Type.Object(
  { error: Type.Object({ code: Type.Integer(), message: Type.String() }) },
  { $id: 'Error', description: 'Error body used by every endpoint unless noted' },
);

export const Success = Type.Object({ success: Type.Literal(true) });

export const Pagination = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'meta.cursor of the previous page; wins over page' })),
  includeTotal: Type.Optional(Type.Boolean({ default: false })),
};

export const ListMeta = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Optional(Type.Integer()),
  cursor: Type.Union([Type.String(), Type.Null()]),
});
