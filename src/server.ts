import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createContext } from './context.js';

/** How long in-flight requests get to finish after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Opens the stores, applies the bootstrap key, listens, and drains on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<FastifyInstance> {
  const context = await createContext(config);
  const app = await buildApp(context);
  if (config.bootstrapApiKey !== null) {
    const outcome = await context.organisations.ensureBootstrap(config.bootstrapApiKey);
    app.log.info({ outcome }, 'bootstrap API key checked');
  }
  await app.listen({ host: config.host, port: config.port });
  app.log.info({ profile: describeProfile(config), workers: config.workers }, 'causa serving');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'draining in-flight requests');
    const force = setTimeout(() => {
      app.log.error('shutdown grace period over; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return app;
}

function describeProfile(config: Config) {
  return {
    metadata: config.databaseUrl !== null ? 'postgres' : 'sqlite',
    rateLimiter: config.redisUrl !== null ? 'redis' : 'memory',
    invalidationBus: config.redisUrl !== null ? 'redis' : 'memory',
    dataDir: config.dataDir,
  };
}
