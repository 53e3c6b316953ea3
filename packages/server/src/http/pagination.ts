import { Type, type TSchema } from '@sinclair/typebox';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Deeper than any real list; above it nothing reaches the database (a 64-bit offset would be a 500). */
export const MAX_OFFSET = 10_000_000;

export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
};

export interface Page<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

export const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });

export function page<T>(data: T[], total: number, q: { limit: number; offset: number }) {
  return { object: 'list' as const, data, total, limit: q.limit, offset: q.offset };
}
