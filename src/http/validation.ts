import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

interface TypeBoxError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/**
 * TypeBox compiled validators. Bodies are checked as sent (nothing coerced: unknown members fail), except the
 * identity members a body does not declare for itself, which are dropped (spec: "Identity fields in request bodies
 * are ignored"), and text that could not be stored exactly, which fails. Query strings and path parameters are
 * converted from text and given their defaults first; an integer parameter must be written as an integer.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  // A file body (format binary, or a multipart form of binary parts) is a stream the handler reads; there is
  // nothing to validate up front.
  if (httpPart === 'body' && isFileBody(schema)) return (value) => ({ value });
  const compiled = Compile(schema);
  if (httpPart === 'body') {
    const ignored = ignoredIdentityMembers(schema);
    return (sent) => {
      const text = unstorableText(sent, '');
      if (text !== null) return { error: [text] as never };
      const value = withoutMembers(sent, ignored);
      return compiled.Check(value) ? { value } : { error: toFieldErrors(compiled.Errors(value) as TypeBoxError[]) as never };
    };
  }
  const integers = integerProperties(schema);
  // Path parameters and headers that are plain strings without defaults need no conversion: check them as they are,
  // and answer `true` (valid, unchanged) rather than `{value}`: fastify would store a value given back for the headers
  // as extra headers, and every later read of request.headers would then allocate a merged copy of them all.
  if (!needsConversion(schema)) {
    return (value) => (compiled.Check(value) ? true : { error: toFieldErrors(compiled.Errors(value) as TypeBoxError[]) as never });
  }
  return (value) => {
    // Convert reads `1.5` and `true` as integers (and may convert in place): a client that sent them meant
    // something else, so such text is kept as sent and fails the check (400, not 1).
    const sent = integers.map((name) => [name, (value as Record<string, unknown> | null)?.[name]] as const);
    const converted = Value.Default(schema, Value.Convert(schema, value)) as Record<string, unknown>;
    for (const [name, raw] of sent) if (typeof raw === 'string' && !INTEGER_LITERAL.test(raw)) converted[name] = raw;
    return compiled.Check(converted) ? { value: converted } : { error: toFieldErrors(compiled.Errors(converted) as TypeBoxError[]) as never };
  };
};

const INTEGER_LITERAL = /^[+-]?\d+$/;
const IDENTITY_MEMBERS = ['organisationId', 'workspaceId', 'userId', 'ownerId'];

/** Top-level properties typed integer (query strings and path parameters are flat). */
function integerProperties(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  return Object.entries(properties).filter(([, p]) => p.type === 'integer').map(([name]) => name);
}

/** Identity members the body schema does not take as members of its own (a link's or a key's `workspaceId` is one). */
function ignoredIdentityMembers(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { description?: string }> }).properties ?? {};
  return IDENTITY_MEMBERS.filter((name) => properties[name] === undefined || properties[name].description?.startsWith('Ignored') === true);
}

function withoutMembers(value: unknown, names: string[]): unknown {
  if (names.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  if (!names.some((name) => Object.hasOwn(value, name))) return value;
  const copy = { ...(value as Record<string, unknown>) };
  for (const name of names) delete copy[name];
  return copy;
}

// A NUL (SQLite text stops at it, PostgreSQL refuses it) or a UTF-16 surrogate without its pair (stored as U+FFFD).
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first text in a body (a string anywhere, or a member name) that the stores cannot keep exactly, located
 * like the other validation errors; null when every text can be stored as sent. The walk builds no path until it
 * finds one (a batch body has millions of values).
 */
function unstorableText(value: unknown, path: string): { instancePath: string; message: string } | null {
  const found = unstorableAt(value, new Set());
  if (found === null) return null;
  const at = path + found.segments.reverse().map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  return { instancePath: at, message: found.member ? 'the member name contains a NUL character or an unpaired UTF-16 surrogate' : 'contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored exactly' };
}

/**
 * Where the first unstorable text is, innermost segment first; null when there is none. Member names already
 * found storable are not tested again (100k records repeat the same few).
 */
function unstorableAt(value: unknown, storableNames: Set<string>): { segments: string[]; member: boolean } | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? { segments: [], member: false } : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item === null || (typeof item !== 'string' && typeof item !== 'object')) continue;
      const found = unstorableAt(item, storableNames);
      if (found) return (found.segments.push(String(i)), found);
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!storableNames.has(key)) {
      if (UNSTORABLE.test(key)) return { segments: [key], member: true };
      storableNames.add(key);
    }
    const found = unstorableAt((value as Record<string, unknown>)[key], storableNames);
    if (found) return (found.segments.push(key), found);
  }
  return null;
}

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
  // Unknown members, by the object holding them: TypeBox reports them as one additionalProperties error, or (several
  // at once) as one `false` schema error each, at the member.
  const unknown = new Map<string, Set<string>>();
  for (const error of errors) {
    if (error.keyword === 'additionalProperties') for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) addTo(unknown, error.instancePath, name);
    if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) {
      const at = error.instancePath.lastIndexOf('/');
      addTo(unknown, error.instancePath.slice(0, at), error.instancePath.slice(at + 1).replace(/~1/g, '/').replace(/~0/g, '~'));
    }
  }
  for (const error of errors) {
    if (error.keyword === 'boolean' || error.keyword === 'additionalProperties') continue;
    let message = error.message;
    if (error.keyword === 'required') {
      const names = (error.params.requiredProperties as string[] | undefined) ?? [];
      if (names.length > 0) message = `missing required member${names.length === 1 ? '' : 's'} ${names.map((n) => `'${n}'`).join(', ')}`;
    }
    const key = `${error.instancePath}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ instancePath: error.instancePath, message });
  }
  for (const [instancePath, names] of unknown) out.push({ instancePath, message: `unknown member${names.size === 1 ? '' : 's'} ${[...names].map((n) => `'${n}'`).join(', ')}` });
  return out;
}

const addTo = (map: Map<string, Set<string>>, key: string, value: string) => map.set(key, (map.get(key) ?? new Set<string>()).add(value));
