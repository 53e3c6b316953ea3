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

/** A body schema compiled as the router compiles it, for code that checks a body before routing (a front-door lane). */
export function compileBodyValidator(schema: object): (body: unknown) => boolean {
  const validate = bodyAjv().compile(schema);
  return (body) => validate(body) === true;
}
