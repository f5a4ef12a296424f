/**
 * Continuous `POST /_replicate` jobs outlive a restart of the server: each one started is
 * remembered in a server value of the storage (its request body, credentials encrypted as in
 * replication documents, and the user it acts as), forgotten when cancelled, and started again
 * when the server starts. CouchDB forgets them (they are "transient"); a user who moves to Divan
 * loses nothing by their being kept.
 */
import type { UserCtx } from '../auth/index.js';
import { decryptCredentials, encryptCredentials } from '../documents/replicator-credentials.js';
import { fromPlain, type JsonObject, toPlain } from '../json/index.js';
import type { Storage } from '../storage/contract.js';
import { reasonOf } from './job.js';
import { readReplicationRequest } from './request.js';
import type { Replicator } from './replicator.js';

/** The server value holding the jobs: `[{id, user, body}]`. */
const KEY = 'replicator_replicate_jobs';

interface Remembered {
  id: string;
  user: UserCtx;
  body: Record<string, unknown>;
}

export interface ReplicateJobsHost {
  values: Pick<Storage, 'getServerValue' | 'setServerValue'>;
  credentialsKey(): Promise<Buffer>;
  replicator: Replicator;
  log(line: string): void;
}

export class ReplicateJobs {
  /** Writes one after another: each reads the list the one before wrote. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly host: ReplicateJobsHost) {}

  /** A continuous job was started by this body, as this user. */
  remember(id: string, body: Record<string, unknown>, user: UserCtx): Promise<void> {
    return this.update(async (jobs) => {
      const sealed = encryptCredentials(fromPlain(body) as JsonObject, await this.host.credentialsKey());
      return [...jobs.filter((job) => job.id !== id), { id, user, body: toPlain(sealed) as Record<string, unknown> }];
    });
  }

  /** The job was cancelled. */
  forget(id: string): Promise<void> {
    return this.update(async (jobs) => jobs.filter((job) => job.id !== id));
  }

  /** Starts every remembered job again (the server just started); one that cannot start is logged. */
  async restart(): Promise<void> {
    const jobs = await this.read();
    if (jobs.length === 0) return;
    const key = await this.host.credentialsKey();
    for (const job of jobs) {
      try {
        const request = readReplicationRequest(decryptCredentials(job.body, key));
        await this.host.replicator.replicate(request, job.user);
      } catch (error) {
        this.host.log(`[error] _replicate job ${job.id} could not start again: ${reasonOf(error)}`);
      }
    }
  }

  private async read(): Promise<Remembered[]> {
    const text = await this.host.values.getServerValue(KEY);
    if (text === undefined) return [];
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as Remembered[]) : [];
  }

  private update(change: (jobs: Remembered[]) => Promise<Remembered[]>): Promise<void> {
    const next = this.queue.then(async () => {
      const jobs = await change(await this.read());
      await this.host.values.setServerValue(KEY, JSON.stringify(jobs));
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
