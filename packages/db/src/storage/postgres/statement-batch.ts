/**
 * Several named statements sent as one batch of the extended protocol: Bind/Describe/Execute for
 * each and one Sync, so PostgreSQL runs them in order and answers them all with one flush (one
 * round trip, one wake-up of each side; node-postgres's own pipelining sends a Sync, and gets a
 * flush back, per statement). A statement fails → PostgreSQL skips the rest up to the Sync; in a
 * transaction that leaves it aborted, as one statement failing would.
 *
 * Built on node-postgres's Query (its handlers split the answer into one result per statement,
 * as for a simple query of several statements); the statements are parsed on the connection the
 * first time and kept there like any named statement.
 */
import { createRequire } from 'node:module';
import pg, { type PoolClient, type QueryResultRow } from 'pg';

/** A named statement and its values. */
export interface BatchStatement {
  name: string;
  text: string;
  values: readonly unknown[];
}

/** What node-postgres's connection (the wire) offers a query (its own Query uses the same calls). */
interface Wire {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void; destroy: () => void };
  parse(message: { text: string; name: string; types?: unknown[] }): void;
  bind(message: {
    portal: string;
    statement: string;
    values: readonly unknown[];
    valueMapper: (value: unknown) => unknown;
  }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
}

type Results = pg.QueryResult | pg.QueryResult[];

const BaseQuery = (pg as unknown as { Query: new (config: { text: string }) => object }).Query;
/** node-postgres's own mapping of parameter values (arrays, Dates, Buffers, objects as JSON…). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

class BatchQuery extends BaseQuery {
  private settled = false;
  /** Names this batch sent a Parse for (recorded as parsed once the batch succeeded). */
  private readonly parsing: string[] = [];
  private wire: Wire | undefined;

  constructor(
    private readonly statements: readonly BatchStatement[],
    private readonly done: (err: Error | undefined, results: Results | undefined) => void,
  ) {
    super({ text: statements.map((s) => s.text).join('; ') });
    // Query's handlers answer through `callback`: an error, then at ReadyForQuery the results.
    (this as unknown as { callback: (err: Error | null, results?: Results) => void }).callback = (err, results) => {
      if (this.settled) return;
      this.settled = true;
      if (err) this.failed(err);
      else this.succeeded(results);
    };
  }

  submit(connection: Wire): Error | null {
    this.wire = connection;
    connection.stream.cork?.();
    try {
      for (const s of this.statements) {
        if (
          connection.parsedStatements[s.name] === undefined &&
          connection.submittedNamedStatements[s.name] === undefined
        ) {
          connection.parse({ text: s.text, name: s.name });
          connection.submittedNamedStatements[s.name] = s.text;
          this.parsing.push(s.name);
        }
        connection.bind({ portal: '', statement: s.name, values: s.values, valueMapper: prepareValue });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  private succeeded(results: Results | undefined): void {
    const wire = this.wire;
    if (wire !== undefined) {
      for (const name of this.parsing) {
        wire.parsedStatements[name] = wire.submittedNamedStatements[name] ?? '';
        delete wire.submittedNamedStatements[name];
      }
    }
    this.done(undefined, results);
  }

  private failed(err: Error): void {
    // Which of this batch's Parses PostgreSQL ran before the error is not told: the connection
    // cannot know its statements any more, so it goes (the pool opens another).
    if (this.parsing.length > 0) this.wire?.stream.destroy();
    this.done(err, undefined);
  }
}

/** Runs `statements` on `client` as one batch (one round trip) and answers each one's rows, in order. */
export function runBatch(client: PoolClient, statements: readonly BatchStatement[]): Promise<QueryResultRow[][]> {
  return new Promise((resolve, reject) => {
    const query = new BatchQuery(statements, (err, results) => {
      if (err !== undefined) {
        reject(err);
        return;
      }
      const list = Array.isArray(results) ? results : results === undefined ? [] : [results];
      if (list.length !== statements.length) {
        reject(new Error(`a batch of ${statements.length} statements answered ${list.length} results`));
        return;
      }
      resolve(list.map((result) => result.rows));
    });
    (client as unknown as { query: (q: object) => unknown }).query(query);
  });
}
