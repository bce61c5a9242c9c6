import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { seededRandom } from '../helpers/simulated.js';
import { type TrainedTwin, completedRun } from '../helpers/simulations.js';

const API = '/api/v1';

/** x -> a -> y <- u (a = 1.2x + e, y = 1.4a + 0.8u + e): a -> y and u -> y are compelled, x - a is not; do(x) moves y by 1.68 per unit. */
function rows(n: number): Array<Record<string, number>> {
  const random = seededRandom(23);
  return Array.from({ length: n }, () => {
    const x = random.normal();
    const u = random.normal();
    const a = 1.2 * x + random.normal();
    return { x, u, a, y: 1.4 * a + 0.8 * u + random.normal() };
  });
}

test('a twin says which edges the data oriented, and a what-if that rests on a reversible edge says so until it is pinned', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const data = rows(3000);
  const meanX = data.reduce((s, r) => s + r.x!, 0) / data.length;
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'chain', rows: data } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'identification', sourceId: source.body.data.id } });
  const twinId = created.body.data.id;
  const versionId = created.body.data.versionId;
  const version = `${API}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}`;
  const learn = async () => {
    const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: { bootstrapSamples: 0 } });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
    return (await app.call({ method: 'GET', url: version })).body.data;
  };
  const learned = await learn();
  const orientation = (s: string, target: string) => learned.causalGraph.find((e: { source: string; target: string }) => e.source === s && e.target === target)?.orientation;
  assert.equal(orientation('a', 'y'), 'compelled');
  assert.equal(orientation('u', 'y'), 'compelled');
  const xa = learned.causalGraph.find((e: { source: string; target: string }) => [e.source, e.target].sort().join() === 'a,x');
  assert.equal(xa.orientation, 'reversible');
  assert.equal(learned.reversibleEdgeCount, 1);

  const twin: TrainedTwin = { app, ws, twinId, versionId, simulations: `${API}/workspaces/${ws}/simulations`, version };
  const whatIf = { type: 'intervention', interventions: [{ variable: 'x', valueSpec: { type: 'set_value', value: 1 } }], targetVars: ['y'] };
  const truth = 1.68 * (1 - meanX);
  const open = await completedRun(twin, whatIf);
  const onY = open.outputs['1.0.0'].details.variables.find((v: { variable: string }) => v.variable === 'y');
  assert.equal(onY.identified, false);
  assert.deepEqual(onY.decidingEdges, [{ source: xa.source, target: xa.target }]);
  const values = onY.possibleDifferences.map((d: { difference: number }) => d.difference).sort((p: number, q: number) => p - q);
  assert.equal(values.length, 2);
  assert.ok(Math.abs(values[0]) < 0.1 && Math.abs(values[1] - truth) < 0.15, `possible effects ${values.join(', ')}; truth 0 or ${truth}`);
  assert.match(open.resultsSummary.summary, /cannot tell whether/);

  const sweep = await completedRun(twin, { type: 'intervention', interventions: [{ variable: 'x', valueSpec: { type: 'range', from: -1, to: 1, steps: 3 } }], targetVars: ['y'] });
  const curve = await app.call({ method: 'GET', url: `${twin.simulations}/${sweep.id}/sweep?metric=y` });
  assert.equal(curve.status, 200, JSON.stringify(curve.body));
  assert.equal(curve.body.data.identified, false);
  assert.equal(curve.body.data.decidingEdges.length, 1);

  // Pin the direction we know, learn again: the same question is identified and right.
  assert.equal((await app.call({ method: 'PATCH', url: `${version}/graph/fixed`, body: { addEdges: [{ source: 'x', target: 'a' }] } })).status, 200);
  const pinned = await learn();
  assert.equal(pinned.reversibleEdgeCount, 0);
  assert.equal(pinned.causalGraph.find((e: { source: string; target: string }) => e.source === 'x' && e.target === 'a').orientation, 'fixed');
  const decided = await completedRun(twin, whatIf);
  const y = decided.outputs['1.0.0'].details.variables.find((v: { variable: string }) => v.variable === 'y');
  assert.equal(y.identified, true);
  assert.ok(Math.abs(y.effect.difference - truth) < 0.15, `effect ${y.effect.difference}, truth ${truth}`);
  assert.doesNotMatch(decided.resultsSummary.summary, /cannot tell/);
});

test('with non-Gaussian noise discovery orients a reversible chain by assumption, says so, and can be told not to', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const random = seededRandom(31);
  const uniform = () => (random.uniform() - 0.5) * Math.sqrt(12);
  const data = Array.from({ length: 3000 }, () => {
    const x = uniform();
    const a = 0.8 * x + uniform();
    return { x, a, y: 0.8 * a + uniform() };
  });
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'uniform chain', rows: data } });
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'assumed', sourceId: source.body.data.id } });
  const twin = `${API}/workspaces/${ws}/digital-twins/${created.body.data.id}`;
  const discover = async (body: Record<string, unknown>) => {
    const job = await app.call({ method: 'POST', url: `${twin}/versions/${created.body.data.versionId}/discover`, body: { bootstrapSamples: 0, ...body } });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
    return (await app.call({ method: 'GET', url: `${twin}/versions/${created.body.data.versionId}` })).body.data;
  };
  const assumed = await discover({});
  const edges = assumed.causalGraph.map((edge: { source: string; target: string; orientation: string; assumption?: string }) => `${edge.source}->${edge.target}:${edge.orientation}:${edge.assumption}`).sort();
  assert.deepEqual(edges, ['a->y:assumed:non_gaussian_residuals', 'x->a:assumed:non_gaussian_residuals']);
  assert.equal(assumed.reversibleEdgeCount, 0);
  assert.deepEqual(assumed.discovery.orientationAssumptions, ['non_gaussian_residuals']);
  const off = await discover({ orientationAssumptions: [] });
  assert.deepEqual(off.causalGraph.map((edge: { orientation: string }) => edge.orientation), ['reversible', 'reversible']);
  assert.equal(off.reversibleEdgeCount, 2);
});

test('a column that repeats another exactly (a code and its label) is searched once, and the twin says the data cannot tell the two apart', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const random = seededRandom(41);
  const pick = (k: number) => Math.min(k - 1, Math.floor(random.uniform() * k));
  const noisy = (value: number, k: number) => (random.uniform() < 0.8 ? value : pick(k));
  const labels = ['low', 'mid', 'high'];
  // a -> c <- b (a v-structure the data orient), c -> d; `grade` is c under other labels.
  const data = Array.from({ length: 3000 }, () => {
    const a = pick(3);
    const b = pick(2);
    const c = noisy(Math.min(2, a + b), 3);
    return { a: `a${a}`, b: `b${b}`, c: `c${c}`, grade: labels[c]!, d: `d${noisy(c % 2, 2)}` };
  });
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'copies', rows: data } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'copies', sourceId: source.body.data.id } });
  const { id: twinId, versionId } = created.body.data;
  const version = `${API}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}`;
  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal(job.status, 202, JSON.stringify(job.body));
  assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
  const learned = (await app.call({ method: 'GET', url: version })).body.data;
  assert.equal(learned.status, 'trained');
  assert.deepEqual(learned.discovery.copies, [{ column: 'grade', copyOf: 'c' }]);
  const edges = Object.fromEntries(learned.causalGraph.map((e: { source: string; target: string; orientation: string }) => [`${e.source}->${e.target}`, e.orientation]));
  assert.deepEqual(edges, { 'a->c': 'compelled', 'b->c': 'compelled', 'c->d': 'compelled', 'c->grade': 'reversible' }, JSON.stringify(learned.causalGraph));
  assert.equal(learned.reversibleEdgeCount, 1);

  // Setting the label: no effect if it only records c, the effect of setting c if it is what c reads.
  const twin: TrainedTwin = { app, ws, twinId, versionId, simulations: `${API}/workspaces/${ws}/simulations`, version };
  const run = await completedRun(twin, { type: 'intervention', interventions: [{ variable: 'grade', valueSpec: { type: 'set_value', value: 'mid' } }], targetVars: ['d'] });
  const onD = run.outputs['1.0.0'].details.variables.find((v: { variable: string }) => v.variable === 'd');
  assert.equal(onD.identified, false);
  assert.deepEqual(onD.decidingEdges, [{ source: 'c', target: 'grade' }]);
  // Setting c to c1 makes d1 0.9 likely: d0 falls from its share to 0.1.
  const [chosen, swapped] = onD.possibleDifferences.map((d: { difference: number[] }) => d.difference[0]);
  assert.equal(chosen, 0);
  assert.ok(Math.abs(swapped - (0.1 - onD.baseline.probabilities[0])) < 0.05, `swapped ${swapped}, baseline ${onD.baseline.probabilities[0]}`);
  assert.match(run.resultsSummary.summary, /cannot tell which of c and grade .* the others respond to.*pin the edge between the copies from the one that acts \(c -> grade if grade only records c/);

  // The original's own effects are open too: with the pair swapped, c only records grade.
  const onOriginal = await completedRun(twin, { type: 'intervention', interventions: [{ variable: 'c', valueSpec: { type: 'set_value', value: 'c1' } }], targetVars: ['d', 'a'] });
  const [d, a] = ['d', 'a'].map((name) => onOriginal.outputs['1.0.0'].details.variables.find((v: { variable: string }) => v.variable === name));
  assert.equal(d.identified, false);
  assert.deepEqual(d.possibleDifferences.map((x: { difference: number[] }) => Math.abs(x.difference[0]!) > 0.3), [true, false]);
  assert.equal(a.identified, true, 'a cause of the pair moves with neither');

  // grade only records c: pinned, the question is decided (setting the record moves nothing).
  assert.equal((await app.call({ method: 'PATCH', url: `${version}/graph/fixed`, body: { addEdges: [{ source: 'c', target: 'grade' }] } })).status, 200);
  const again = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal((await waitForJob(app, ws, again.body.data.jobId)).status, 'completed');
  const pinned = (await app.call({ method: 'GET', url: version })).body.data;
  assert.equal(pinned.causalGraph.find((e: { target: string }) => e.target === 'grade').orientation, 'fixed');
  assert.equal(pinned.reversibleEdgeCount, 0);
  const decided = await completedRun(twin, { type: 'intervention', interventions: [{ variable: 'grade', valueSpec: { type: 'set_value', value: 'mid' } }], targetVars: ['d'] });
  const onDecided = decided.outputs['1.0.0'].details.variables.find((v: { variable: string }) => v.variable === 'd');
  assert.equal(onDecided.identified, true);
  assert.deepEqual(onDecided.effect.difference, [0, 0]);
});

test('an amount stored in two units is one variable to discovery, and setting the second unit is answered over both roles', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const copied = rows(2000).map((r) => ({ ...r, aInCents: r.a! * 100 }));
  const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'units', rows: copied } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins`, body: { name: 'units', sourceId: source.body.data.id } });
  const { id: twinId, versionId } = created.body.data;
  const version = `${API}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}`;
  const job = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
  const learned = (await app.call({ method: 'GET', url: version })).body.data;
  assert.deepEqual(learned.discovery.copies, [{ column: 'aInCents', copyOf: 'a' }]);
  const edges = learned.causalGraph.map((e: { source: string; target: string }) => `${e.source}->${e.target}`).sort();
  assert.ok(edges.includes('a->aInCents') && edges.includes('a->y') && edges.includes('u->y'), edges.join(' '));
  const twin: TrainedTwin = { app, ws, twinId, versionId, simulations: `${API}/workspaces/${ws}/simulations`, version };
  // Raising the amount in cents by 100 (a by 1) moves y by 1.4 if y reads it, by nothing if it only records a.
  const meanCents = copied.reduce((s, r) => s + r.aInCents, 0) / copied.length;
  const run = await completedRun(twin, { type: 'intervention', interventions: [{ variable: 'aInCents', valueSpec: { type: 'set_value', value: meanCents + 100 } }], targetVars: ['y'] });
  const onY = run.outputs['1.0.0'].details.variables.find((v: { variable: string }) => v.variable === 'y');
  assert.equal(onY.identified, false);
  const effects = onY.possibleDifferences.map((d: { difference: number }) => d.difference).sort((p: number, q: number) => p - q);
  assert.equal(effects.length, 2);
  assert.ok(Math.abs(effects[0]) < 0.1 && Math.abs(effects[1] - 1.4) < 0.15, `possible effects ${effects.join(', ')}`);
});
