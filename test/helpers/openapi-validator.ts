import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its callable is the default export under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

interface Compiled {
  ajv: Ajv2020;
  doc: any;
  operations: Array<{ method: string; pattern: RegExp; template: string }>;
}

const cache = new WeakMap<FastifyInstance, Compiled>();

function compile(app: FastifyInstance): Compiled {
  const doc = JSON.parse(JSON.stringify(app.swagger()));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
  const operations = [];
  for (const [template, item] of Object.entries<any>(doc.paths ?? {})) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const method of Object.keys(item)) operations.push({ method: method.toUpperCase(), pattern, template });
  }
  return { ajv, doc, operations };
}

/** Rewrites local refs of an OpenAPI fragment so Ajv resolves them inside the registered document. */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
}

/**
 * Every response a test receives must be described by the served OpenAPI document: a documented status,
 * a documented content type, and a body that validates against its schema. Unknown routes must still answer
 * a problem document.
 */
export async function assertMatchesOpenApi(app: FastifyInstance, method: string, url: string, status: number, contentType: string, body: unknown) {
  let compiled = cache.get(app);
  if (compiled === undefined) {
    compiled = compile(app);
    cache.set(app, compiled);
  }
  const path = url.split('?')[0] ?? url;
  const operation = compiled.operations.find((op) => op.method === method.toUpperCase() && op.pattern.test(path));
  if (operation === undefined) {
    if (status >= 400) assert.match(contentType, /^application\/problem\+json/, `${method} ${url}: ${status} must be a problem document`);
    return;
  }
  const responses = compiled.doc.paths[operation.template][method.toLowerCase()].responses;
  const response = responses[String(status)] ?? responses.default;
  assert.ok(response, `${method} ${operation.template}: status ${status} is not in the OpenAPI document`);
  if (status === 204) return;
  const mediaType = contentType.split(';')[0]!.trim();
  const content = response.content?.[mediaType];
  assert.ok(content, `${method} ${operation.template} ${status}: content type ${mediaType} not documented`);
  if (content.schema === undefined || mediaType === 'text/plain') return;
  const validate = compiled.ajv.compile(rebase(content.schema) as object);
  if (!validate(body)) {
    assert.fail(`${method} ${operation.template} ${status}: body does not match the OpenAPI schema: ${compiled.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  }
}
