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

test('a body with several unknown members names them all at the object holding them (never an empty list)', () => {
  const schema = Type.Object({ name: Type.String(), inner: Type.Optional(Type.Object({ a: Type.Number() }, { additionalProperties: false })) }, { additionalProperties: false });
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'PUT', url: '/x' }) as (value: unknown) => { error?: Array<{ instancePath: string; message: string }> };
  const one = validate({ name: 'n', id: 1 }).error!;
  assert.deepEqual(one, [{ instancePath: '', message: "unknown member 'id'" }]);
  const several = validate({ name: 'n', id: 1, createdAt: 'x', inner: { a: 1, b: 2, 'c/d': 3 } }).error!;
  assert.deepEqual(several.map((e) => [e.instancePath, e.message]).sort(), [['', "unknown members 'id', 'createdAt'"], ['/inner', "unknown members 'b', 'c/d'"]]);
});
