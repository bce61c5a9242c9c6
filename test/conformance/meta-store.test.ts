/**
 * Conformance of the metadata store adapters (the style of hono's `src/router/common.case.test.ts`): one suite,
 * `describeMetaStoreConformance`, states what every MetaStore must do, and each adapter runs it.
 *
 * - SQLite in memory: always.
 * - SQLite on a temporary file: always; cases that need "another process" use a worker thread that opens the
 *   same file, because two writers in one thread would wait on each other synchronously (libsql is blocking).
 * - PostgreSQL: only with TEST_DATABASE_URL (a fresh, empty database). Unset, its cases are skipped with that
 *   reason, unless CAUSA_REQUIRE_SCALE_OUT=1, in which case they fail.
 *
 * Every row carries ids from newId and names unique to the run, so the suite can run again on the same database.
 * This file is also the entry point of the worker threads ("other processes") it starts: see `runWorker`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { sql } from 'kysely';
import { hashApiKey, generateApiKeyValue } from '../../src/api-keys/api-key-value.js';
import { ApiKeyRepo, type ApiKeyRow } from '../../src/api-keys/repo.js';
import { newKeyRow } from '../../src/api-keys/service.js';
import { IdempotencyRepo, type IdempotencyRow } from '../../src/http/idempotency-repo.js';
import { JobRepo, type JobRow } from '../../src/jobs/repo.js';
import { newId, nowIso } from '../../src/lib/ids.js';
import { OntologyInstallRepo, type OntologyInstallRow } from '../../src/ontology/libraries/repo.js';
import { DataViewRepo, type DataViewRow } from '../../src/query/views/repo.js';
import { OrganisationRepo, type NewOrganisation } from '../../src/organisations/repo.js';
import { OrganisationService } from '../../src/organisations/service.js';
import { openEmbeddedMetaStore } from '../../src/store/meta/embedded.js';
import { MIGRATION_NAMES, migrateToLatest } from '../../src/store/meta/migrations.js';
import type { MetaStore } from '../../src/store/meta/port.js';
import { openPostgresMetaStore } from '../../src/store/meta/postgres.js';
import type { MetaDatabase } from '../../src/store/meta/schema.js';
import { UserRepo } from '../../src/users/repo.js';
import { type MemberRow, StaleVersionError, WorkspaceRepo, type WorkspaceRow } from '../../src/workspaces/repo.js';

// ---------------------------------------------------------------------------------------------------------------
// How a store is opened, in this thread or in a worker thread.

/** A serialisable recipe for opening a store, so a worker thread ("another process") can open the same one. */
type OpenSpec = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

const openSpec = (spec: OpenSpec): Promise<MetaStore> =>
  spec.kind === 'sqlite' ? openEmbeddedMetaStore(spec.file) : openPostgresMetaStore(spec.url);

export interface MetaStoreTarget {
  /** Opens an instance; successive calls reach the same database exactly when `shared` is set. */
  open(): Promise<MetaStore>;
  /** How another process opens the same database; absent when the database cannot be shared (':memory:'). */
  shared?: OpenSpec;
  /** When set, every case is skipped with this reason. */
  skip?: string;
  /** When set, the suite fails with this reason instead of running (an adapter that is required is not configured). */
  fail?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Worker threads: the "other process" of the two-writer cases.

type WorkerJob =
  | { op: 'open' }
  | { op: 'insert-organisation'; id: string }
  | {
      op: 'write-burst';
      organisationId: string;
      ownerUserId: string;
      namePrefix: string;
      inserts: number;
      updates: { id: string; version: number; description: string }[];
      bootstrapKey: string;
      bootstraps: number;
    };

interface WorkerInput {
  causaMetaStoreWorker: true;
  spec: OpenSpec;
  job: WorkerJob;
}

interface WorkerResult {
  elapsedMs: number;
  bootstrapOutcomes: string[];
}

type WorkerMessage = { type: 'ready' } | { type: 'done'; result: WorkerResult } | { type: 'error'; message: string };

/**
 * Starts a worker thread that opens `spec` and then waits; `go()` makes it run `job` (for `open`, the open itself
 * is the job, so several workers can race on a cold database).
 */
async function startWorker(spec: OpenSpec, job: WorkerJob): Promise<{ go(): Promise<WorkerResult> }> {
  const input: WorkerInput = { causaMetaStoreWorker: true, spec, job };
  const worker = new Worker(new URL(import.meta.url), { workerData: input });
  const outcome = new Promise<WorkerResult>((resolve, reject) => {
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'done') resolve(message.result);
      if (message.type === 'error') reject(new Error(`worker: ${message.message}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code} before reporting`)));
  });
  outcome.catch(() => undefined); // observed through go(); a failure before go() is reported by `ready` below
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (message: WorkerMessage) => message.type === 'ready' && resolve());
    outcome.catch(reject);
  });
  return {
    go: () => {
      worker.postMessage('go');
      return outcome;
    },
  };
}

async function runWorker(input: WorkerInput): Promise<void> {
  const port = parentPort!;
  const go = () => new Promise<void>((resolve) => port.once('message', () => resolve()));
  let store: MetaStore | undefined;
  try {
    if (input.job.op === 'open') {
      port.postMessage({ type: 'ready' } satisfies WorkerMessage);
      await go();
    }
    const started = Date.now();
    store = await openSpec(input.spec);
    let bootstrapOutcomes: string[] = [];
    if (input.job.op !== 'open') {
      port.postMessage({ type: 'ready' } satisfies WorkerMessage);
      await go();
    }
    const jobStarted = input.job.op === 'open' ? started : Date.now();
    const job = input.job;
    if (job.op === 'insert-organisation') {
      await store.db.insertInto('organisations').values({ id: job.id, name: job.id, created_at: nowIso() }).execute();
    } else if (job.op === 'write-burst') {
      const workspaces = new WorkspaceRepo(store.db);
      const service = organisationService(store);
      const [, , outcomes] = await Promise.all([
        Promise.all(
          Array.from({ length: job.inserts }, (_, i) => {
            const row = workspaceRow(job.organisationId, job.ownerUserId, `${job.namePrefix}${i}`);
            return workspaces.insert(row, ownerMembership(row));
          }),
        ),
        Promise.all(job.updates.map((u) => workspaces.update(job.organisationId, u.id, u.version, { description: u.description }))),
        Promise.all(Array.from({ length: job.bootstraps }, () => service.ensureBootstrap(job.bootstrapKey))),
      ]);
      bootstrapOutcomes = outcomes;
    }
    port.postMessage({ type: 'done', result: { elapsedMs: Date.now() - jobStarted, bootstrapOutcomes } } satisfies WorkerMessage);
  } catch (error) {
    port.postMessage({ type: 'error', message: String((error as Error)?.stack ?? error) } satisfies WorkerMessage);
  } finally {
    await store?.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Row builders and small queries.

const organisationService = (store: MetaStore) =>
  new OrganisationService(new OrganisationRepo(store.db), new ApiKeyRepo(store.db), store.isUniqueViolation);

/** A name nobody else uses, so reruns on the same database never collide. */
const unique = (label: string) => `${label} ${newId('n')}`;

function workspaceRow(organisationId: string, ownerUserId: string, name: string): WorkspaceRow {
  const now = nowIso();
  return {
    id: newId('ws'),
    organisation_id: organisationId,
    name,
    name_key: name.toLowerCase(),
    description: null,
    is_org_library: 0,
    owner_user_id: ownerUserId,
    created_at: now,
    updated_at: now,
    version: 1,
  };
}

const ownerMembership = (row: WorkspaceRow): MemberRow => ({
  workspace_id: row.id,
  user_id: row.owner_user_id,
  level: 'full',
  created_at: row.created_at,
});

/** Every part of a new organisation, with fresh ids; `key` defaults to a fresh key of its admin. */
function organisationEntry(name: string): NewOrganisation & { key: ApiKeyRow } {
  const now = nowIso();
  const organisationId = newId('org');
  const userId = newId('usr');
  const library = workspaceRow(organisationId, userId, 'Organisation library');
  library.is_org_library = 1;
  const { row: key } = newKeyRow({
    organisationId,
    userId,
    workspaceId: null,
    name: 'admin',
    scopes: [],
    expiresAt: null,
    ipAllowlist: '',
    rateLimit: 100,
    createdByKeyId: null,
  });
  return {
    organisation: { id: organisationId, name, created_at: now },
    admin: { id: userId, organisation_id: organisationId, name: 'admin', email: null, role: 'admin', created_at: now },
    library,
    libraryMembership: ownerMembership(library),
    key,
  };
}

type Counted = 'organisations' | 'users' | 'workspaces' | 'api_keys';

async function count(store: MetaStore, table: Counted, column: 'id' | 'organisation_id' | 'name', value: string): Promise<number> {
  const { n } = await store.db
    .selectFrom(table as keyof MetaDatabase as 'organisations')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(column as 'id', '=', value)
    .executeTakeFirstOrThrow();
  return Number(n); // PostgreSQL answers count(*) as a bigint string
}

/** Whatever remains of an organisation, table by table: all zero when it is gone without a trace. */
async function remnants(store: MetaStore, entry: NewOrganisation) {
  const members = await store.db
    .selectFrom('workspace_members')
    .select('user_id')
    .where('workspace_id', '=', entry.library.id)
    .execute();
  return {
    organisations: await count(store, 'organisations', 'id', entry.organisation.id),
    users: await count(store, 'users', 'organisation_id', entry.organisation.id),
    workspaces: await count(store, 'workspaces', 'organisation_id', entry.organisation.id),
    workspace_members: members.length,
    api_keys: await count(store, 'api_keys', 'organisation_id', entry.organisation.id),
  };
}

/**
 * The bootstrap key belongs to one organisation `default`, and no organisation `default` created since `since` exists
 * without a key: a losing bootstrap left nothing behind. (Counting organisations before and after would be simpler,
 * but would break when two runs share the database.)
 */
async function assertOneBootstrappedOrganisation(store: MetaStore, keyValue: string, since: string): Promise<void> {
  const owners = await store.db
    .selectFrom('api_keys')
    .innerJoin('organisations', 'organisations.id', 'api_keys.organisation_id')
    .select(['organisations.id', 'organisations.name'])
    .where('api_keys.key_hash', '=', hashApiKey(keyValue))
    .execute();
  assert.deepEqual(owners.map((o) => o.name), ['default']);
  const keyless = await store.db
    .selectFrom('organisations')
    .select('organisations.id')
    .where('organisations.name', '=', 'default')
    .where('organisations.created_at', '>=', since)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('api_keys').select('api_keys.id').whereRef('api_keys.organisation_id', '=', 'organisations.id'))),
    )
    .execute();
  assert.deepEqual(keyless, [], 'a losing bootstrap left an organisation behind');
}

const NOTHING = { organisations: 0, users: 0, workspaces: 0, workspace_members: 0, api_keys: 0 };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the operation to fail');
}

// ---------------------------------------------------------------------------------------------------------------
// The suite.

export function describeMetaStoreConformance(name: string, target: MetaStoreTarget): void {
  describe(name, () => {
    if (target.fail !== undefined) {
      it('is configured', () => assert.fail(target.fail));
      return;
    }
    const skip = target.skip ?? false;
    let store: MetaStore;
    let tenant: { organisationId: string; userId: string };
    let other: { organisationId: string; userId: string };

    before(async () => {
      if (skip !== false) return;
      store = await target.open();
      const service = organisationService(store);
      tenant = await service.create(unique('acme'));
      other = await service.create(unique('globex'));
    });
    after(async () => {
      await store?.close();
    });

    const needsShared = skip !== false ? skip : target.shared === undefined ? 'this database cannot be reached by another process' : false;

    it('answers a ping', { skip }, async () => {
      await store.ping();
    });

    it('runs its migrations idempotently: migrating again and opening a second instance keep the data', { skip }, async () => {
      await migrateToLatest(store.db);
      await migrateToLatest(store.db);
      assert.equal(await count(store, 'organisations', 'id', tenant.organisationId), 1);
      if (target.shared !== undefined) {
        const second = await target.open();
        try {
          assert.equal(await count(second, 'organisations', 'id', tenant.organisationId), 1);
        } finally {
          await second.close();
        }
      }
      const migrations = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
      assert.deepEqual(migrations.rows.map((r) => r.name), MIGRATION_NAMES);
      assert.ok(MIGRATION_NAMES.length >= 2);
    });

    it('creates an organisation with its admin, library workspace, membership and key', { skip }, async () => {
      const entry = organisationEntry(unique('initech'));
      await new OrganisationRepo(store.db).create(entry);
      assert.deepEqual(await remnants(store, entry), { organisations: 1, users: 1, workspaces: 1, workspace_members: 1, api_keys: 1 });
      assert.equal((await new ApiKeyRepo(store.db).findCredentialByHash(entry.key.key_hash))?.organisation_id, entry.organisation.id);
    });

    it('creates an organisation whole or not at all when its last insert violates a unique constraint', { skip }, async () => {
      const taken = organisationEntry(unique('first'));
      await new OrganisationRepo(store.db).create(taken);
      const entry = organisationEntry(unique('second'));
      entry.key = { ...entry.key, key_hash: taken.key.key_hash }; // the key is inserted last, after everything else
      const error = await rejection(new OrganisationRepo(store.db).create(entry));
      assert.ok(store.isUniqueViolation(error), `expected a unique violation, got ${String(error)}`);
      assert.deepEqual(await remnants(store, entry), NOTHING);
    });

    it('creates an organisation whole or not at all when a middle insert fails for another reason', { skip }, async () => {
      const entry = organisationEntry(unique('dangling'));
      entry.libraryMembership = { ...entry.libraryMembership, user_id: newId('usr') }; // no such user: foreign key
      const error = await rejection(new OrganisationRepo(store.db).create(entry));
      assert.equal(store.isUniqueViolation(error), false, `a foreign-key failure is not a unique violation: ${String(error)}`);
      assert.deepEqual(await remnants(store, entry), NOTHING);
    });

    it('leaves nothing behind when OrganisationService.create is given a key value that is taken', { skip }, async () => {
      const value = generateApiKeyValue();
      const service = organisationService(store);
      await service.create(unique('holder'), value);
      const name = unique('latecomer');
      const error = await rejection(service.create(name, value));
      assert.ok(store.isUniqueViolation(error));
      assert.equal(await count(store, 'organisations', 'name', name), 0);
    });

    it('keeps workspace names unique per organisation regardless of case, and recognises the clash', { skip }, async () => {
      const repo = new WorkspaceRepo(store.db);
      const first = workspaceRow(tenant.organisationId, tenant.userId, 'Growth');
      await repo.insert(first, ownerMembership(first));
      const shouted = workspaceRow(tenant.organisationId, tenant.userId, 'GROWTH');
      const error = await rejection(repo.insert(shouted, ownerMembership(shouted)));
      assert.ok(store.isUniqueViolation(error), `expected a unique violation, got ${String(error)}`);
      assert.equal(await repo.find(tenant.organisationId, shouted.id), undefined);
      assert.equal(await repo.memberLevel(shouted.id, tenant.userId), undefined, 'the failed insert left a membership');
      const elsewhere = workspaceRow(other.organisationId, other.userId, 'growth');
      await repo.insert(elsewhere, ownerMembership(elsewhere)); // another organisation may use the name
      assert.equal((await repo.find(other.organisationId, elsewhere.id))?.name, 'growth');
    });

    it('keeps API key hashes unique and recognises the clash', { skip }, async () => {
      const repo = new ApiKeyRepo(store.db);
      const grant = {
        organisationId: tenant.organisationId,
        userId: tenant.userId,
        workspaceId: null,
        name: 'ci',
        scopes: [],
        expiresAt: null,
        ipAllowlist: '',
        rateLimit: 10,
        createdByKeyId: null,
      };
      const { row, value } = newKeyRow(grant);
      await repo.insert(row);
      const { row: twin } = newKeyRow({ ...grant, organisationId: other.organisationId, userId: other.userId }, value);
      const error = await rejection(repo.insert(twin));
      assert.ok(store.isUniqueViolation(error), `expected a unique violation, got ${String(error)}`);
      assert.equal(await repo.find(other.organisationId, twin.id), undefined);
      assert.equal((await repo.findCredentialByHash(hashApiKey(value)))?.id, row.id);
    });

    it('lets an idempotency key be claimed once per organisation', { skip }, async () => {
      const repo = new IdempotencyRepo(store.db, store.isUniqueViolation);
      const key = newId('idem');
      const claim = (organisationId: string, fingerprint: string): IdempotencyRow => ({
        organisation_id: organisationId,
        idempotency_key: key,
        fingerprint,
        state: 'pending',
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: nowIso(),
      });
      assert.equal(await repo.claim(claim(tenant.organisationId, 'a')), true);
      assert.equal(await repo.claim(claim(tenant.organisationId, 'b')), false);
      assert.equal(await repo.claim(claim(other.organisationId, 'c')), true, 'another organisation has its own keys');
      assert.equal((await repo.find(tenant.organisationId, key))?.fingerprint, 'a', 'the losing claim changed the row');
      const racers = await Promise.all(Array.from({ length: 10 }, (_, i) => repo.claim({ ...claim(tenant.organisationId, 'x'), idempotency_key: `${key}-race`, fingerprint: `r${i}` })));
      assert.equal(racers.filter(Boolean).length, 1, 'exactly one of ten concurrent claims wins');
    });

    it('does not take other failures, or things that are not errors, for unique violations', { skip }, async () => {
      const failures = [
        // foreign key: the organisation does not exist
        () => store.db.insertInto('users').values({ id: newId('usr'), organisation_id: newId('org'), name: 'x', email: null, role: 'member', created_at: nowIso() }).execute(),
        // not null
        () => store.db.insertInto('organisations').values({ id: newId('org'), name: null as never, created_at: nowIso() }).execute(),
        // no such table
        () => sql`select * from no_such_table_${sql.raw(String(Date.now()))}`.execute(store.db),
      ];
      for (const failure of failures) {
        const error = await rejection(failure());
        assert.equal(store.isUniqueViolation(error), false, String(error));
      }
      for (const value of [undefined, null, 'UNIQUE', 23505, {}, new Error('boom')]) assert.equal(store.isUniqueViolation(value), false, String(value));
    });

    it('applies exactly one of two updates naming the same version; the other throws StaleVersionError', { skip }, async () => {
      const repo = new WorkspaceRepo(store.db);
      const row = workspaceRow(tenant.organisationId, tenant.userId, unique('contended'));
      await repo.insert(row, ownerMembership(row));
      const peer = target.shared !== undefined ? await target.open() : store; // a second instance when one can exist
      try {
        const writers = [repo, new WorkspaceRepo(peer.db)];
        const settled = await Promise.allSettled(
          writers.map((writer, i) => writer.update(tenant.organisationId, row.id, 1, { description: `writer ${i}`, updated_at: nowIso() })),
        );
        const winners = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [i] : []));
        assert.equal(winners.length, 1, `exactly one update must win: ${JSON.stringify(settled)}`);
        const loser = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult;
        assert.ok(loser.reason instanceof StaleVersionError, String(loser.reason));
        const stored = await repo.find(tenant.organisationId, row.id);
        assert.equal(stored?.description, `writer ${winners[0]}`, "the row carries the winner's change");
        assert.equal(stored?.version, 2);
      } finally {
        if (peer !== store) await peer.close();
      }
      // A writer that read version 1 cannot overwrite later changes; one that read version 2 can.
      await assert.rejects(repo.update(tenant.organisationId, row.id, 1, { description: 'late' }), StaleVersionError);
      await repo.update(tenant.organisationId, row.id, 2, { description: 'fresh' });
      const stored = await repo.find(tenant.organisationId, row.id);
      assert.deepEqual([stored?.description, stored?.version], ['fresh', 3]);
    });

    it('lets exactly one of twenty concurrent updates naming the same version win', { skip }, async () => {
      const repo = new WorkspaceRepo(store.db);
      const row = workspaceRow(tenant.organisationId, tenant.userId, unique('crowded'));
      await repo.insert(row, ownerMembership(row));
      const settled = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => repo.update(tenant.organisationId, row.id, 1, { description: `w${i}` })));
      const winners = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [i] : []));
      assert.equal(winners.length, 1);
      for (const s of settled) if (s.status === 'rejected') assert.ok(s.reason instanceof StaleVersionError, String(s.reason));
      const stored = await repo.find(tenant.organisationId, row.id);
      assert.deepEqual([stored?.description, stored?.version], [`w${winners[0]}`, 2]);
    });

    it('lands 50 concurrent workspace inserts and 50 concurrent updates', { skip }, async () => {
      const { organisationId, userId } = await organisationService(store).create(unique('busy'));
      const repo = new WorkspaceRepo(store.db);
      const existing = Array.from({ length: 50 }, (_, i) => workspaceRow(organisationId, userId, `existing ${i}`));
      for (const row of existing) await repo.insert(row, ownerMembership(row));
      const fresh = Array.from({ length: 50 }, (_, i) => workspaceRow(organisationId, userId, `fresh ${i}`));
      await Promise.all([
        ...fresh.map((row) => repo.insert(row, ownerMembership(row))),
        ...existing.map((row, i) => repo.update(organisationId, row.id, 1, { description: `updated ${i}` })),
      ]);
      const rows = await repo.listVisible(organisationId, null);
      assert.equal(rows.length, 1 + 50 + 50, 'library + existing + fresh');
      const byId = new Map(rows.map((r) => [r.id, r]));
      existing.forEach((row, i) => assert.deepEqual([byId.get(row.id)?.description, byId.get(row.id)?.version], [`updated ${i}`, 2]));
      for (const row of fresh) assert.equal(byId.get(row.id)?.version, 1);
      assert.equal((await repo.listVisible(organisationId, userId)).length, 101, 'every insert also made its owner a member');
    });

    it('creates exactly one organisation when ten bootstraps of one key race', { skip }, async () => {
      const key = generateApiKeyValue();
      const since = nowIso();
      const services = Array.from({ length: 10 }, () => organisationService(store));
      const outcomes = await Promise.all(services.map((service) => service.ensureBootstrap(key)));
      assert.deepEqual(outcomes.filter((o) => o === 'created'), ['created']);
      await assertOneBootstrappedOrganisation(store, key, since);
      assert.equal(await organisationService(store).ensureBootstrap(key), 'existing');
      const credential = await new ApiKeyRepo(store.db).findCredentialByHash(hashApiKey(key));
      assert.equal(credential?.user_role, 'admin');
    });

    it('confines repository reads and writes to the organisation that asks', { skip }, async () => {
      const workspaces = new WorkspaceRepo(store.db);
      const row = workspaceRow(tenant.organisationId, tenant.userId, unique('private'));
      await workspaces.insert(row, ownerMembership(row));
      assert.equal((await workspaces.find(tenant.organisationId, row.id))?.id, row.id);
      assert.equal(await workspaces.find(other.organisationId, row.id), undefined);
      assert.ok(!(await workspaces.listVisible(other.organisationId, null)).some((w) => w.id === row.id));
      await assert.rejects(workspaces.update(other.organisationId, row.id, 1, { description: 'hijacked' }), StaleVersionError);
      assert.equal(await workspaces.delete(other.organisationId, row.id), false);
      const stored = await workspaces.find(tenant.organisationId, row.id);
      assert.deepEqual([stored?.description, stored?.version], [null, 1]);
      assert.equal(await new UserRepo(store.db).find(other.organisationId, tenant.userId), undefined);
      const key = await store.db.selectFrom('api_keys').select('id').where('organisation_id', '=', tenant.organisationId).executeTakeFirstOrThrow();
      assert.equal(await new ApiKeyRepo(store.db).find(other.organisationId, key.id), undefined);
    });

    it('keeps data views per workspace: names unique case-insensitively, pages newest first, and another organisation neither reads, changes nor deletes them', { skip }, async () => {
      const views = new DataViewRepo(store.db);
      const workspace = workspaceRow(tenant.organisationId, tenant.userId, unique('views'));
      await new WorkspaceRepo(store.db).insert(workspace, ownerMembership(workspace));
      const row = (name: string, at: string): DataViewRow => ({
        id: newId('dv'), organisation_id: tenant.organisationId, workspace_id: workspace.id, name, name_key: name.toLowerCase(), description: null,
        query: 'SELECT count(*) AS n FROM orders', created_by: tenant.userId, created_at: at, updated_at: at,
      });
      const first = row('Revenue', '2026-01-01T00:00:00.000Z');
      const second = row('Orders', '2026-01-02T00:00:00.000Z');
      await views.insert(first);
      await views.insert(second);
      const clash = await views.insert(row('REVENUE', '2026-01-03T00:00:00.000Z')).then(() => null, (error: unknown) => error);
      assert.ok(store.isUniqueViolation(clash), `a name taken in another case is a unique violation: ${String(clash)}`);
      const page = await views.list(tenant.organisationId, workspace.id, { limit: 1, after: null });
      assert.deepEqual([page.total, page.rows[0]?.id], [2, second.id], 'newest first (the page reads one row past its limit, to know there is more)');
      const next = await views.list(tenant.organisationId, workspace.id, { limit: 1, after: [second.created_at, second.id] });
      assert.deepEqual(next.rows.map((r) => r.id), [first.id]);

      assert.equal(await views.find(other.organisationId, workspace.id, first.id), undefined);
      assert.equal((await views.list(other.organisationId, workspace.id, { limit: 10, after: null })).total, 0);
      assert.equal(await views.update(other.organisationId, workspace.id, first.id, { description: 'theirs' }), false);
      assert.equal(await views.delete(other.organisationId, workspace.id, first.id), false);
      assert.equal(await views.update(tenant.organisationId, workspace.id, first.id, { description: 'ours' }), true);
      assert.equal((await views.find(tenant.organisationId, workspace.id, first.id))?.description, 'ours');
      assert.equal(await views.delete(tenant.organisationId, workspace.id, first.id), true);
      assert.equal(await views.find(tenant.organisationId, workspace.id, first.id), undefined);
    });

    it('keeps one ontology install per workspace and library: saving again moves its version, keeps who installed it, and other organisations neither read nor overwrite it', { skip }, async () => {
      const installs = new OntologyInstallRepo(store.db);
      const workspace = workspaceRow(tenant.organisationId, tenant.userId, unique('installs'));
      await new WorkspaceRepo(store.db).insert(workspace, ownerMembership(workspace));
      const first: OntologyInstallRow = {
        organisation_id: tenant.organisationId, workspace_id: workspace.id, ontology_id: 'causa.commerce', ontology_version: '1.0.0',
        concepts: '[]', installed_by: tenant.userId, installed_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
      };
      assert.deepEqual(await installs.save(first), first);
      const later = { ...first, ontology_version: '1.1.0', concepts: '[{"canonicalId":"country","conceptId":"cpt_1","origin":"created"}]', installed_by: 'usr_later', installed_at: '2026-02-01T00:00:00.000Z', updated_at: '2026-02-01T00:00:00.000Z' };
      assert.deepEqual(await installs.save(later), { ...later, installed_by: first.installed_by, installed_at: first.installed_at });
      await Promise.all(Array.from({ length: 10 }, (_, i) => installs.save({ ...later, updated_at: `2026-03-0${i % 9 + 1}T00:00:00.000Z` })));
      assert.equal((await installs.list(tenant.organisationId, workspace.id)).length, 1, 'concurrent saves land one row');

      assert.equal(await installs.find(other.organisationId, workspace.id, first.ontology_id), undefined);
      assert.deepEqual(await installs.list(other.organisationId, workspace.id), []);
      await assert.rejects(installs.save({ ...first, organisation_id: other.organisationId, ontology_version: '9.0.0' }), /another organisation/);
      assert.equal(await installs.delete(other.organisationId, workspace.id, first.ontology_id), false);
      assert.equal((await installs.find(tenant.organisationId, workspace.id, first.ontology_id))?.ontology_version, '1.1.0', 'untouched by the other organisation');
      assert.equal(await installs.delete(tenant.organisationId, workspace.id, first.ontology_id), true);
      assert.deepEqual(await installs.list(tenant.organisationId, workspace.id), []);
    });

    it('keeps the job queue exact: a queued job is claimed once, and a cancel and a finish never both win', { skip }, async () => {
      const jobs = new JobRepo(store.db);
      const workspace = workspaceRow(tenant.organisationId, tenant.userId, unique('jobs'));
      await new WorkspaceRepo(store.db).insert(workspace, { workspace_id: workspace.id, user_id: tenant.userId, level: 'full', created_at: nowIso() });
      const job = (id: string): JobRow => ({
        id, organisation_id: tenant.organisationId, workspace_id: workspace.id, type: 'twin_discover', status: 'queued', resource_type: null,
        resource_id: null, params: '{}', progress: '{}', result: null, error: null, webhook_url: null, created_by: tenant.userId,
        created_at: nowIso(), started_at: null, completed_at: null, owner: null, heartbeat_at: null, subtype: null, phase: null,
      });
      const [first, second] = [newId('job'), newId('job')];
      await jobs.insert(job(first));
      await jobs.insert(job(second), '{"rows":[1,2,3]}');
      const input = await store.db.selectFrom('job_inputs').select('input').where('job_id', '=', second).executeTakeFirst();
      assert.equal(input?.input, '{"rows":[1,2,3]}', 'a job\'s input is kept apart from its row');
      const claims = await Promise.all([jobs.claim(first, 'p1', nowIso()), jobs.claim(first, 'p2', nowIso())]);
      assert.deepEqual(claims.filter(Boolean).length, 1, 'exactly one claim wins');
      const owner = claims[0] ? 'p1' : 'p2';
      const claimed = claims.find(Boolean)!;
      assert.deepEqual([claimed.id, claimed.status, claimed.owner, claimed.params], [first, 'running', owner, '{}'], 'the claim answers the row as claimed');
      assert.equal(await jobs.isRunningBy(first, owner), true);
      assert.equal(await jobs.heartbeat(first, owner === 'p1' ? 'p2' : 'p1', '{}', nowIso()), false, 'only the owner writes');
      const done = { status: 'completed' as const, progress: '{}', result: '{}', error: null, completedAt: nowIso() };
      const [cancelled, finished] = await Promise.all([jobs.cancel(first, '{}', nowIso()), jobs.finish(first, owner, done)]);
      assert.equal(Number(cancelled) + Number(finished), 1, 'one terminal state');
      assert.equal(await jobs.cancel(first, '{}', nowIso()), false, 'a terminal job stays as it is');
      assert.ok((await jobs.queued(10, ['twin_discover'])).some((job) => job.id === second));
      assert.equal((await jobs.queued(10, ['other_type'])).some((job) => job.id === second), false, 'a process only claims types it runs');
      const stale = new Date(Date.now() + 60_000).toISOString();
      assert.equal((await jobs.claim(second, 'p3', nowIso()))?.owner, 'p3');
      const orphans = await jobs.orphaned(stale, null, ['twin_discover']);
      assert.ok(orphans.some((row) => row.id === second));
      assert.equal(await jobs.failOrphan(orphans.find((row) => row.id === second)!, 'gone', nowIso()), true);
      assert.equal((await jobs.findById(second))?.status, 'failed');
    });

    it('hands out the oldest queued jobs of each type asked for, all in queue order, past a backlog of other types', { skip }, async () => {
      const jobs = new JobRepo(store.db);
      const workspace = workspaceRow(tenant.organisationId, tenant.userId, unique('queue'));
      await new WorkspaceRepo(store.db).insert(workspace, { workspace_id: workspace.id, user_id: tenant.userId, level: 'full', created_at: nowIso() });
      const [a, b, other] = [unique('type_a'), unique('type_b'), unique('type_c')];
      const job = (id: string, type: string, createdAt: string): JobRow => ({
        id, organisation_id: tenant.organisationId, workspace_id: workspace.id, type, status: 'queued', resource_type: null,
        resource_id: null, params: '{}', progress: '{}', result: null, error: null, webhook_url: null, created_by: tenant.userId,
        created_at: createdAt, started_at: null, completed_at: null, owner: null, heartbeat_at: null, subtype: null, phase: null,
      });
      const at = (second: number) => `2020-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
      for (let i = 0; i < 30; i++) await jobs.insert(job(`job_${other}_${String(i).padStart(2, '0')}`, other, at(0)));
      await jobs.insert(job(`job_${a}_1`, a, at(1)));
      await jobs.insert(job(`job_${b}_1`, b, at(2)));
      // A tie on created_at is broken by id, as the claim's order is.
      await jobs.insert(job(`job_${b}_0`, b, at(3)));
      await jobs.insert(job(`job_${a}_2`, a, at(3)));
      await jobs.insert(job(`job_${a}_3`, a, at(4)));
      const ids = async (limit: number, types: string[]) => (await jobs.queued(limit, types)).map((row) => row.id);
      assert.deepEqual(await ids(10, [b, a]), [`job_${a}_1`, `job_${b}_1`, ...[`job_${a}_2`, `job_${b}_0`].sort(), `job_${a}_3`]);
      assert.deepEqual(await ids(2, [a, b]), [`job_${a}_1`, `job_${b}_1`, ...[`job_${a}_2`, `job_${b}_0`].sort()], 'at most two of each type');
      assert.deepEqual(await ids(2, [a]), [`job_${a}_1`, `job_${a}_2`]);
      assert.deepEqual((await jobs.queued(2, [b, other])).map((row) => row.type), [other, other, b, b], 'the oldest first, whatever their type');
      assert.deepEqual(await ids(5, [unique('type_none')]), [], 'a type with none queued is absent');
      assert.deepEqual(await ids(5, []), []);
    });

    it('shows each instance the writes of another instance on the same database', { skip: needsShared }, async () => {
      const second = await target.open();
      try {
        const id = newId('org');
        await second.db.insertInto('organisations').values({ id, name: unique('seen'), created_at: nowIso() }).execute();
        assert.equal(await count(store, 'organisations', 'id', id), 1);
        const repo = new WorkspaceRepo(store.db);
        const row = workspaceRow(tenant.organisationId, tenant.userId, unique('shared'));
        await repo.insert(row, ownerMembership(row));
        assert.equal((await new WorkspaceRepo(second.db).find(tenant.organisationId, row.id))?.id, row.id);
      } finally {
        await second.close();
      }
    });

    it("makes another process's write wait for an open transaction, not fail", { skip: needsShared }, async () => {
      const theirs = newId('org');
      const worker = await startWorker(target.shared!, { op: 'insert-organisation', id: theirs });
      let done!: Promise<WorkerResult>;
      const ours = newId('org');
      await store.db.transaction().execute(async (tx) => {
        await tx.insertInto('organisations').values({ id: ours, name: ours, created_at: nowIso() }).execute();
        done = worker.go(); // SQLite: the worker now waits on the write lock (busy_timeout); PostgreSQL: it need not
        await sleep(300);
      });
      const { elapsedMs } = await done;
      // SQLite has one writer at a time: the worker's insert can only finish after our commit, about 300 ms later.
      if (store.kind === 'sqlite') assert.ok(elapsedMs >= 200, `the second writer did not wait (${elapsedMs} ms)`);
      assert.equal(await count(store, 'organisations', 'id', ours), 1);
      assert.equal(await count(store, 'organisations', 'id', theirs), 1);
    });

    it('lands the concurrent writes and bootstraps of two processes on one database', { skip: needsShared }, async () => {
      const { organisationId, userId } = await organisationService(store).create(unique('shared-busy'));
      const repo = new WorkspaceRepo(store.db);
      const existing = Array.from({ length: 50 }, (_, i) => workspaceRow(organisationId, userId, `existing ${i}`));
      for (const row of existing) await repo.insert(row, ownerMembership(row));
      const key = generateApiKeyValue();
      const since = nowIso();
      // Each process inserts 25 workspaces, updates its half of the existing ones and bootstraps the same key 5 times.
      const worker = await startWorker(target.shared!, {
        op: 'write-burst',
        organisationId,
        ownerUserId: userId,
        namePrefix: 'theirs ',
        inserts: 25,
        updates: existing.slice(25).map((row, i) => ({ id: row.id, version: 1, description: `theirs ${i}` })),
        bootstrapKey: key,
        bootstraps: 5,
      });
      const service = organisationService(store);
      const [theirs, ours] = await Promise.all([
        worker.go(),
        Promise.all([
          ...Array.from({ length: 25 }, (_, i) => {
            const row = workspaceRow(organisationId, userId, `ours ${i}`);
            return repo.insert(row, ownerMembership(row)).then(() => 'inserted');
          }),
          ...existing.slice(0, 25).map((row, i) => repo.update(organisationId, row.id, 1, { description: `ours ${i}` }).then(() => 'updated')),
          ...Array.from({ length: 5 }, () => service.ensureBootstrap(key)),
        ]),
      ]);
      const outcomes = [...theirs.bootstrapOutcomes, ...ours.filter((o) => o === 'created' || o === 'existing')];
      assert.equal(outcomes.length, 10);
      assert.deepEqual(outcomes.filter((o) => o === 'created'), ['created'], 'exactly one bootstrap created the organisation');
      await assertOneBootstrappedOrganisation(store, key, since);
      const rows = await repo.listVisible(organisationId, null);
      assert.equal(rows.length, 1 + 50 + 25 + 25);
      const byId = new Map(rows.map((r) => [r.id, r]));
      existing.forEach((row, i) => {
        const expected = i < 25 ? `ours ${i}` : `theirs ${i - 25}`;
        assert.deepEqual([byId.get(row.id)?.description, byId.get(row.id)?.version], [expected, 2]);
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The adapters.

/**
 * A scale-out adapter runs when its variable names a server; unset, it is skipped, unless CAUSA_REQUIRE_SCALE_OUT=1
 * demands it, and then its suite fails.
 */
function scaleOut(variable: string): { url: string } | { skip: string } | { fail: string } {
  const url = process.env[variable];
  if (url) return { url };
  if (process.env.CAUSA_REQUIRE_SCALE_OUT === '1') return { fail: `${variable} is not set, but CAUSA_REQUIRE_SCALE_OUT=1 requires this adapter to run` };
  return { skip: `${variable} not set` };
}

if (!isMainThread && (workerData as WorkerInput | undefined)?.causaMetaStoreWorker === true) {
  await runWorker(workerData as WorkerInput);
} else {
  describeMetaStoreConformance('SQLite metadata store, in memory', { open: () => openEmbeddedMetaStore(':memory:') });

  const directory = mkdtempSync(join(tmpdir(), 'causa-meta-conformance-'));
  after(() => rmSync(directory, { recursive: true, force: true }));
  const file = join(directory, 'meta.sqlite');
  describeMetaStoreConformance('SQLite metadata store, on a file shared by two instances', {
    open: () => openEmbeddedMetaStore(file),
    shared: { kind: 'sqlite', file },
  });

  describe('SQLite metadata store, file specifics', () => {
    it('opens the file in WAL mode with a busy timeout, so a second writer waits instead of failing', async () => {
      const store = await openEmbeddedMetaStore(join(directory, 'pragmas.sqlite'));
      try {
        const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
        assert.equal(mode.rows[0]?.journal_mode, 'wal');
        const timeout = await sql<{ timeout: number }>`pragma busy_timeout`.execute(store.db);
        assert.ok(Number(timeout.rows[0]?.timeout) > 0);
      } finally {
        await store.close();
      }
    });

    it(
      'lets several processes open a brand-new file at once',
      async () => {
        const spec: OpenSpec = { kind: 'sqlite', file: join(directory, `cold-${newId('f')}.sqlite`) };
        const workers = await Promise.all(Array.from({ length: 4 }, () => startWorker(spec, { op: 'open' })));
        const settled = await Promise.allSettled(workers.map((w) => w.go())); // all of them: none outlives the temp directory
        const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
        assert.deepEqual(failures, []);
      },
    );
  });

  const database = scaleOut('TEST_DATABASE_URL');
  const url = 'url' in database ? database.url : '';
  describeMetaStoreConformance('PostgreSQL metadata store', {
    open: () => openPostgresMetaStore(url),
    shared: { kind: 'postgres', url },
    ...('skip' in database && { skip: database.skip }),
    ...('fail' in database && { fail: database.fail }),
  });
}
