/**
 * The one writer of a source at a time: queued behind other writers of this process, and across processes under
 * the source's write lease in the metadata store (renewed while the work runs).
 */
import { AppError, notFound } from '../errors.js';
import { newId, nowIso } from '../lib/ids.js';
import { KeyedMutex } from '../lib/keyed-mutex.js';
import type { SourceRepo, SourceRow } from './repo.js';

/** A held write lease: its token, and a check to make right before rows are committed. */
export interface Lease {
  token: string;
  assertHeld(): void;
}

/** How long a write lease lasts unless renewed (renewed every third of it while the writer works). */
const LEASE_MS = 5 * 60_000;
/** How long a writer waits for the lease before answering 409, and how often it tries. */
const LEASE_WAIT_MS = 2_000;
const LEASE_POLL_MS = 50;

export class SourceWriters {
  private readonly writers = new KeyedMutex();

  constructor(private readonly repo: SourceRepo) {}

  /**
   * Runs a change of a source's rows as its one writer: queued behind other writers of this process, and across
   * processes under the source's write lease (renewed while the work runs). A writer that cannot get the lease
   * answers 409 having changed nothing; a writer that crashed leaves a lease that lapses.
   */
  run<T>(organisationId: string, id: string, work: (current: SourceRow, lease: Lease) => Promise<T>): Promise<T> {
    return this.writers.run(id, async () => {
      const token = newId('lease');
      const until = () => new Date(Date.now() + LEASE_MS).toISOString();
      // Short writers (an extraction recording its status) hold the lease for milliseconds: wait a little for them.
      for (let waited = 0; !(await this.repo.acquireLease(organisationId, id, token, nowIso(), until())); waited += LEASE_POLL_MS) {
        // No lease on a source that is gone: the writer learns it at once (an extraction recording its status
        // after a delete used to wait out its retries, 90 s, as if another writer held the source).
        if (waited === 0 && (await this.repo.find(organisationId, id)) === undefined) throw notFound('Source', id);
        if (waited >= LEASE_WAIT_MS) throw new AppError('conflict', `Another upload or change to source ${id} is running; retry when it is done`);
        await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
      }
      // A renewal that finds the lease gone (it lapsed, another writer took it) stops this writer before it
      // commits rows; one that cannot reach the store leaves the decision to the next renewal.
      let lost = false;
      const renewal = setInterval(() => {
        this.repo.renewLease(organisationId, id, token, until()).then((held) => (lost ||= !held), () => undefined);
      }, LEASE_MS / 3);
      renewal.unref();
      const lease: Lease = {
        token,
        assertHeld: () => {
          if (lost) throw new AppError('conflict', `The write lease on source ${id} lapsed and another writer took it; nothing of this change was kept`);
        },
      };
      try {
        const current = await this.repo.find(organisationId, id);
        if (current === undefined) throw notFound('Source', id);
        return await work(current, lease);
      } finally {
        clearInterval(renewal);
        await this.repo.releaseLease(organisationId, id, token);
      }
    });
  }
}
