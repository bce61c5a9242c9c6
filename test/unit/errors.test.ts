import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError, PROBLEMS, type ProblemCode, problemType } from '../../src/errors.js';

test('every catalogue entry renders a complete RFC 7807 problem with its status', () => {
  for (const code of Object.keys(PROBLEMS) as ProblemCode[]) {
    const problem = new AppError(code, `detail of ${code}`).toProblem('/x', 'req-1');
    assert.equal(problem.status, PROBLEMS[code].status);
    assert.equal(problem.title, PROBLEMS[code].title);
    assert.equal(problem.type, problemType(code));
    assert.equal(problem.detail, `detail of ${code}`);
    assert.ok(problem.status >= 400 && problem.status <= 599, code);
  }
});

test('problem types are unique, stable URNs', () => {
  const types = (Object.keys(PROBLEMS) as ProblemCode[]).map(problemType);
  assert.equal(new Set(types).size, types.length);
  for (const type of types) assert.match(type, /^urn:causa:problem:[a-z-]+$/);
});

test('the statuses of the spec error table are all in the catalogue', () => {
  const statuses = new Set<number>(Object.values(PROBLEMS).map((p) => p.status));
  for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500]) assert.ok(statuses.has(status), String(status));
});
