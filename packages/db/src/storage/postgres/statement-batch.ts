/**
 * Several named statements sent as one batch of the extended protocol: Bind/Describe/Execute for
 * each and one Sync, so PostgreSQL runs them in order and answers them all with one flush (one
 * round trip, one wake-up of each side; node-postgres's own pipelining sends a Sync, and gets a
 * flush back, per statement). A statement fails → PostgreSQL skips the rest up to the Sync; in a
 * transaction that leaves it aborted, as one statement failing would.
 *
 * Built on node-postgres's Query (its handlers split the answer into one result per statement,
 * as for a simple query of several statements); the statements are parsed on the connection the
 * first time and kept there like any named statement. A statement's columns are asked for
 * (Describe) the first time only: the connection keeps them by name (a named statement's text,
 * and so its columns, never change), which spares PostgreSQL a RowDescription and the node its
 * parsing at every run.
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

/** A RowDescription's columns, as node-postgres's parser gives them. */
type Columns = readonly unknown[];
interface RowDescription {
  fields: Columns;
}
/** What of node-postgres's Query (and its Result) a batch builds on. */
interface QueryInternals {
  _result: { addFields(fields: Columns): void };
  _accumulateRows: boolean;
  _checkForMultirow(): void;
  handleRowDescription(msg: RowDescription): void;
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: unknown): void;
}
const BaseQuery = (pg as unknown as { Query: new (config: { text: string }) => QueryInternals }).Query;

/**
 * Each connection's statements' columns by name, once PostgreSQL described them (none: a
 * statement answering no rows, `BEGIN`); goes with the connection.
 */
const describedOn = new WeakMap<Wire, Map<string, Columns>>();
/** node-postgres's own mapping of parameter values (arrays, Dates, Buffers, objects as JSON…). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

class BatchQuery extends BaseQuery {
  private settled = false;
  /** Names this batch sent a Parse for (recorded as parsed once the batch succeeded). */
  private readonly parsing: string[] = [];
  private wire: Wire | undefined;
  /** The statement whose answer comes now (moved on at each CommandComplete). */
  private answering = 0;
  /** Per statement: its columns as kept (no Describe sent), or undefined when described now. */
  private kept: (Columns | undefined)[] = [];
  /** Whether the answering statement's columns were given to its result (RowDescription or kept). */
  private columnsGiven = false;

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
    let described = describedOn.get(connection);
    if (described === undefined) {
      described = new Map();
      describedOn.set(connection, described);
    }
    this.kept = this.statements.map((s) => described.get(s.name));
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
        if (described.get(s.name) === undefined) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  override handleRowDescription(msg: RowDescription): void {
    this.columnsGiven = true;
    const name = this.statements[this.answering]?.name;
    if (this.wire !== undefined && name !== undefined) describedOn.get(this.wire)?.set(name, msg.fields);
    super.handleRowDescription(msg);
  }

  override handleDataRow(msg: unknown): void {
    if (!this.columnsGiven) {
      // Not described this time: its result starts here, with the columns the connection kept.
      this.columnsGiven = true;
      this._checkForMultirow();
      this._result.addFields(this.kept[this.answering] ?? []);
      this._accumulateRows = true;
    }
    super.handleDataRow(msg);
  }

  override handleCommandComplete(msg: unknown, connection: unknown): void {
    const name = this.statements[this.answering]?.name;
    // Described, and no RowDescription came: the statement answers no rows (NoData).
    if (!this.columnsGiven && this.kept[this.answering] === undefined && this.wire !== undefined && name !== undefined)
      describedOn.get(this.wire)?.set(name, []);
    this.answering += 1;
    this.columnsGiven = false;
    super.handleCommandComplete(msg, connection);
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
