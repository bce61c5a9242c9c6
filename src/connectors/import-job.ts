import { Transform } from 'node:stream';
import type { Static } from 'typebox';
import type { ConnectorType, ReadConfigSchema } from '../../schemas/connectors.js';
import { AppError } from '../errors.js';
import { type JobContext, JobError, type JobRunner } from '../jobs/runner.js';
import { SAMPLE_ROWS } from '../tables/ingest.js';
import { splitIntoParts } from '../tables/parts.js';
import { receiveFile } from '../tables/receive.js';
import type { SourceBatches } from '../sources/batches.js';
import type { SourceService } from '../sources/service.js';
import { canonicalFields, declaredSchema } from './declared-schema.js';
import { SourceError } from './drivers/port.js';
import { withoutSecrets } from './secrets.js';
import { CONNECTOR_IMPORT_JOB, type ConnectorService, type OpenedConnector, targetOf } from './service.js';

/** Largest extract one import may write to disk. */
const MAX_IMPORT_BYTES = 100 * 1024 ** 3;

interface ImportParams {
  connectorId: string;
  connectorType: ConnectorType;
  config: Static<typeof ReadConfigSchema>;
  datasetName: string;
  ontologyMode: 'auto' | 'manual';
}

/**
 * The import job: the source streams its rows to disk (memory stays bounded whatever the table's size) and they are
 * stored as one batch of a new tabular source, typed by the source's declared column types. CSV from SQL sources is
 * written in parts, each stored while the next is read (a large PostgreSQL table arrives as several streams read
 * side by side, written into one set of parts); a storage file is written whole, then stored. Any failure, or a
 * cancel, leaves no source.
 */
export class ConnectorImport {
  constructor(
    private readonly connectors: ConnectorService,
    private readonly sources: SourceService,
    private readonly batches: SourceBatches,
    private readonly uploadDirectory: string,
    /** Bytes of the parts a CSV extract is stored in (config.importPartBytes). */
    private readonly partBytes: number,
  ) {}

  register(runner: JobRunner): void {
    runner.register(CONNECTOR_IMPORT_JOB, (context: JobContext<ImportParams>) => this.run(context));
  }

  private async run(context: JobContext<ImportParams>) {
    const { job, signal, params } = context;
    const row = await this.connectors.findForJob(job.organisation_id, params.connectorId);
    if (row === undefined) throw new JobError(`Connector ${params.connectorId} was deleted before the import started`);
    context.progress(0.01, 'connecting to the source');
    const connector = await this.connectors.open(row).catch((error: unknown) => {
      throw error instanceof AppError ? new JobError(error.message) : error;
    });
    try {
      const target = targetOf(connector.type, params.config);
      const extract = await connector.driver.extract(target, signal);
      // Listeners first (the streams are already flowing): a failing stream fails the copy, a cancel stops every read.
      // CSV (SQL sources) is written in parts, each stored while the next is read; a file (storage) is written whole first.
      const parted = extract.format === 'csv';
      const streams = [extract.stream, ...(extract.ranges ?? [])];
      const rows = new RowCount((read) => {
        const share = extract.estimatedRows ? Math.min(1, read / extract.estimatedRows) : 0;
        context.progress(0.02 + (parted ? 0.88 : 0.58) * share, `${parted ? 'reading and storing' : 'reading'} rows from the source (${read.toLocaleString('en')} so far)`);
      });
      const bodies = streams.map((stream) => {
        const counter = rows.counter();
        stream.on('error', (error) => counter.destroy(error));
        return stream.pipe(counter);
      });
      const cancel = () => streams.forEach((stream) => stream.destroy(new JobError('The import was cancelled')));
      signal.addEventListener('abort', cancel, { once: true });
      if (signal.aborted) cancel();
      const received = parted
        ? splitIntoParts(bodies, this.uploadDirectory, { partBytes: this.partBytes, firstPartRecords: SAMPLE_ROWS + 1, maxBytes: MAX_IMPORT_BYTES }).then((parts) => ({ parts }))
        : receiveFile(bodies[0]!, this.uploadDirectory, MAX_IMPORT_BYTES).then((file) => ({ file }));
      received.catch(() => undefined); // awaited below: a failure while the status is recorded is not unhandled
      await this.connectors.record(connector, null);
      const stopped = () => {
        streams.forEach((stream) => stream.destroy());
        signal.removeEventListener('abort', cancel);
      };
      const file = await received.catch((error: unknown) => {
        stopped();
        throw error;
      });
      if ('file' in file) stopped();
      try {
        if (signal.aborted) throw new JobError('The import was cancelled');
        if ('file' in file) context.progress(0.6, `storing ${rows.total.toLocaleString('en')} rows`);
        const source = await this.batches.createFromExtract(
          { organisationId: job.organisation_id, workspaceId: job.workspace_id },
          {
            name: params.datasetName,
            description: `Imported from connector ${row.name} (${connector.type})`,
            ontologyMode: params.ontologyMode,
            recipe: { connectorId: row.id, connectorType: connector.type, config: params.config, importedAt: new Date().toISOString() },
          },
          file,
          extract.format,
          {
            ...(extract.declared === null ? {} : { decide: declaredSchema(extract.declared), canonical: canonicalFields(extract.declared) }),
            beforeCommit: () => {
              if (signal.aborted) throw new JobError('The import was cancelled');
            },
          },
        );
        // Cancelled (here or from another process) after the source was stored: take it back out.
        await context.ensureActive().catch(async (error: unknown) => {
          await this.batches.discardImported(job.organisation_id, source.id);
          throw error;
        });
        await this.sources.rowsAdded(source, job.workspace_id, job.created_by);
        context.progress(1, 'completed');
        const bytes = 'file' in file ? file.file.bytes : (await file.parts.finished).bytes;
        return { sourceId: source.id, sourceName: source.name, rowCount: source.documentCount, columnCount: source.schemaEntries.length, bytes };
      } finally {
        stopped();
        await ('file' in file ? file.file : file.parts).discard();
      }
    } catch (error) {
      throw await this.failure(connector, error);
    } finally {
      await connector.driver.close();
    }
  }

  /** The job's error: the source's own words without secrets; an unreachable source also marks the connector. */
  private async failure(connector: OpenedConnector, error: unknown): Promise<Error> {
    if (error instanceof JobError) return error;
    if (error instanceof SourceError) {
      const message = withoutSecrets(error.message, connector.secrets);
      if (error.kind === 'unreachable') await this.connectors.record(connector, message);
      return new JobError(`The source ${error.kind === 'unreachable' ? 'could not be reached' : 'refused the read'}: ${message}`);
    }
    if (error instanceof AppError && error.message === 'The batch has no rows') return new JobError('The source returned no rows: an import needs at least one');
    if (error instanceof AppError) return new JobError(withoutSecrets(error.message, connector.secrets));
    // A stream error of a driver that is not a SourceError (a dropped connection mid-copy): the source's message.
    if (error instanceof Error && (error as NodeJS.ErrnoException).code !== undefined) return new JobError(`The read from the source failed: ${withoutSecrets(error.message, connector.secrets)}`);
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Counts CSV/NDJSON line ends passing through the streams of one read (an estimate of rows for progress; quoted line breaks count too). */
class RowCount {
  total = 0;
  private reported = 0;

  constructor(private readonly report: (rows: number) => void) {}

  /** A pass-through that adds the line ends of one stream to the total. */
  counter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.total += 1;
        if (this.total - this.reported >= 50_000) {
          this.reported = this.total;
          this.report(this.total);
        }
        done(null, chunk);
      },
    });
  }
}
