import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { validatorCompiler } from '../../../src/http/validation.js';

test('headers checked as they are give nothing back for fastify to store (it would keep them as extra headers and copy them on every read)', () => {
  const validate = validatorCompiler({ schema: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1 })) }), httpPart: 'headers', method: 'POST', url: '/x' }) as (value: unknown) => unknown;
  assert.equal(validate({ 'idempotency-key': 'k-1', host: 'example' }), true);
  const refused = validate({ 'idempotency-key': '' }) as { error?: unknown };
  assert.ok(Array.isArray(refused.error) && refused.error.length > 0, JSON.stringify(refused));
});
