import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { LatencyHistogram } from './latency-histogram.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/**
 * Operational endpoints outside the versioned API: /healthz (the process answers), /readyz (every store
 * reachable) and /metrics (Prometheus text, with a latency histogram by route and status).
 */
export function installOperations(app: FastifyInstance, checks: ReadinessCheck[]): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const latency = new LatencyHistogram(
    'http_request_duration_seconds',
    'HTTP request latency by route template, method and status',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  app.addHook('onResponse', (request, reply, done) => {
    latency.observe(request.method, request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched'), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const Status = Type.Object({ status: Type.String() });
  app.get('/healthz', {
    config: { public: true },
    schema: { operationId: 'getHealth', summary: 'Liveness: the process answers', tags: ['Operations'], response: { 200: Status } },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    config: { public: true, problems: [503] },
    schema: {
      operationId: 'getReadiness',
      summary: 'Readiness: every store this process uses is reachable',
      tags: ['Operations'],
      response: { 200: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) }) },
    },
  }, async () => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => [name, await check().then(() => 'ok', (e: Error) => `unreachable: ${e.message}`)] as const),
    );
    const failed = results.filter(([, outcome]) => outcome !== 'ok');
    if (failed.length > 0) throw new AppError('unavailable', `Not ready: ${failed.map(([n, o]) => `${n} ${o}`).join('; ')}`);
    return { status: 'ready', checks: Object.fromEntries(results) };
  });

  app.get('/metrics', {
    config: { public: true },
    schema: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      tags: ['Operations'],
      response: { 200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: Type.String() } } } },
    },
  }, async (_request, reply) => {
    reply.type(registry.contentType);
    return `${await registry.metrics()}\n${latency.render()}`;
  });
}
