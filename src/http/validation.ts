import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

interface TypeBoxError {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/**
 * TypeBox compiled validators. Bodies are checked as sent (nothing coerced, nothing stripped: unknown members
 * fail); query strings and path parameters are converted from text and given their defaults first.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  // A file body (format binary, or a multipart form of binary parts) is a stream the handler reads; there is
  // nothing to validate up front.
  if (httpPart === 'body' && isFileBody(schema)) return (value) => ({ value });
  const compiled = Compile(schema);
  if (httpPart === 'body') {
    return (value) => (compiled.Check(value) ? { value } : { error: toFieldErrors(compiled.Errors(value) as TypeBoxError[]) as never });
  }
  // Path parameters and headers that are plain strings without defaults need no conversion: check them as they are.
  if (!needsConversion(schema)) {
    return (value) => (compiled.Check(value) ? { value } : { error: toFieldErrors(compiled.Errors(value) as TypeBoxError[]) as never });
  }
  return (value) => {
    const converted = Value.Default(schema, Value.Convert(schema, value));
    return compiled.Check(converted) ? { value: converted } : { error: toFieldErrors(compiled.Errors(converted) as TypeBoxError[]) as never };
  };
};

function isFileBody(schema: TSchema): boolean {
  const { format, properties } = schema as { format?: string; properties?: Record<string, { format?: string }> };
  if (format === 'binary') return true;
  const parts = Object.values(properties ?? {});
  return parts.length > 0 && parts.every((part) => part.format === 'binary');
}

function needsConversion(schema: TSchema): boolean {
  const properties = Object.values((schema as { properties?: Record<string, { type?: string; default?: unknown }> }).properties ?? {});
  return properties.length === 0 || properties.some((property) => property.type !== 'string' || property.default !== undefined);
}

/** Readable, de-duplicated errors (the HTTP layer prefixes the request part to the pointer); the noise TypeBox adds for each additionalProperties hit is folded in. */
function toFieldErrors(errors: TypeBoxError[]): Array<{ instancePath: string; message: string }> {
  const seen = new Set<string>();
  const out: Array<{ instancePath: string; message: string }> = [];
  for (const error of errors) {
    if (error.keyword === 'boolean') continue;
    let message = error.message;
    if (error.keyword === 'additionalProperties') {
      const names = (error.params.additionalProperties as string[] | undefined) ?? [];
      message = `unknown member${names.length === 1 ? '' : 's'} ${names.map((n) => `'${n}'`).join(', ')}`;
    }
    if (error.keyword === 'required') {
      const names = (error.params.requiredProperties as string[] | undefined) ?? [];
      if (names.length > 0) message = `missing required member${names.length === 1 ? '' : 's'} ${names.map((n) => `'${n}'`).join(', ')}`;
    }
    const key = `${error.instancePath}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ instancePath: error.instancePath, message });
  }
  return out;
}
