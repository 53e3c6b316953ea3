import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const COMMON = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;

/**
 * Bodies are validated strictly (no type coercion: "5" is not 5); query strings and path
 * parameters are coerced, since everything in a URL is text.
 */
export function validators() {
  const body = bodyAjv();
  const url = addFormats.default(new Ajv.default({ ...COMMON, coerceTypes: 'array' }));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? body : url).compile(schema) as never;
}

function bodyAjv() {
  return addFormats.default(new Ajv.default({ ...COMMON, coerceTypes: false }));
}

/**
 * A body schema compiled as the router compiles it, for code that checks a body before routing (a front-door lane):
 * the same bodies pass. Only whether it passes is asked (the router writes the errors), so a union of string
 * literals is compiled as the `enum` it means: ajv tries an `anyOf` one branch after another, making an error for
 * each branch that fails, which made 20 beacon events of mixed types cost 2–3 times the check of 20 views.
 */
export function compileBodyValidator(schema: object): (body: unknown) => boolean {
  const validate = bodyAjv().compile(literalUnionsAsEnums(schema) as object);
  return (body) => validate(body) === true;
}

function literalUnionsAsEnums(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(literalUnionsAsEnums);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = literalUnionsAsEnums(value);
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length && anyOf.every(isStringLiteral) && (out.type === undefined || out.type === 'string')) {
    delete out.anyOf;
    out.type = 'string';
    out.enum = anyOf.map((branch: { const: string }) => branch.const);
  }
  return out;
}

/** `{const: 'view'}` or `{type: 'string', const: 'view'}`, with nothing else that checks */
const isStringLiteral = (branch: unknown): branch is { const: string } => {
  if (branch === null || typeof branch !== 'object') return false;
  const { const: value, type, description: _description, ...rest } = branch as Record<string, unknown>;
  return typeof value === 'string' && (type === undefined || type === 'string') && Object.keys(rest).length === 0;
};
