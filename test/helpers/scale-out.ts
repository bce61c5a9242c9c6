import type { TestContext } from 'node:test';

/**
 * Scale-out adapters are exercised when the test runner provides them (TEST_DATABASE_URL, TEST_REDIS_URL; see
 * scripts/test.sh). Without them the cases are skipped, unless CAUSA_REQUIRE_SCALE_OUT=1 (CI), where a
 * missing store is a failure: CI must never pass by skipping.
 */
export type ExternalService = 'TEST_DATABASE_URL' | 'TEST_REDIS_URL' | 'TEST_MYSQL_URL' | 'TEST_CLICKHOUSE_SOURCE_URL';

export function scaleOutUrl(name: ExternalService): string | undefined {
  const value = process.env[name];
  if ((value === undefined || value === '') && process.env.CAUSA_REQUIRE_SCALE_OUT === '1') {
    throw new Error(`${name} must be set when CAUSA_REQUIRE_SCALE_OUT=1`);
  }
  return value === '' ? undefined : value;
}

/** Skips the test (visibly) when the store is not provided; returns its URL otherwise. */
export function requireScaleOut(t: TestContext, name: ExternalService): string | undefined {
  const url = scaleOutUrl(name);
  if (url === undefined) t.skip(`${name} not set`);
  return url;
}
