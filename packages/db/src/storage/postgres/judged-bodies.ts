/**
 * PostgreSQL's `foldDocBodies` with the scan's `NumberBound`s judged in the page statement, as
 * SQLite does (../sqlite/doc-folds.ts `judgedBodies`): a live document whose member is a JSON
 * integer that fails a bound is left out in SQL and never sent to node; any other document (member
 * missing, a float, another type) is sent, for the matcher to judge. Once a page keeps more than
 * half of the documents it walked (counted by id, the primary key alone), the rest of the walk
 * reads every document: judging costs a row more than reading it (docs/benchmarks.md, PostgreSQL,
 * session 45).
 */
import { GROWING_PAGES, keysetPagesAsync } from '../keyset-pages.js';
import type { IdRange, NumberBound } from '../records.js';
import { rangeWhere } from './range-where.js';
import type { DocRow } from './statements.js';
import { named } from './statements.js';

export type BodyRow = DocRow & { body: string | null };

/** What the walk needs of its database: the schema, the `tree` column, the id, a query. */
export interface JudgedWalk {
  schema: string;
  treeColumn: string;
  dbId: string;
  query: <T extends BodyRow | { n: string }>(config: { name: string; text: string }, values: unknown[]) => Promise<T[]>;
}

/**
 * The live documents of `range` with their bodies, a page per statement, less those whose member
 * is an integer that fails one of `bounds`.
 */
export async function* judgedBodies(
  walk: JudgedWalk,
  range: IdRange,
  bounds: readonly NumberBound[],
): AsyncGenerator<readonly BodyRow[]> {
  const { schema } = walk;
  const filterParams: string[] = [];
  let filter = '';
  for (const bound of bounds) {
    const member = `$${2 + filterParams.length}::text`;
    filterParams.push(bound.member);
    const judged = integerComparison(bound);
    let comparison = 'IS NULL';
    if (judged !== undefined) {
      comparison = `${judged.op} $${2 + filterParams.length}::int8`;
      filterParams.push(String(judged.value));
    }
    filter += ` AND NOT ${outOfBound(member, comparison)}`;
  }
  const first = 2 + filterParams.length;
  // The body by its primary key, a lookup per document (OFFSET 0 keeps the subquery from being
  // flattened into a join the planner could make a merge join of: docs/benchmarks.md, PostgreSQL).
  const table =
    `${schema}.docs LEFT JOIN LATERAL (SELECT b.body FROM ${schema}.bodies b ` +
    'WHERE b.db_id = docs.db_id AND b.id = docs.id AND b.rev = docs.rev OFFSET 0) b ON true';
  const columns = `id, seq, rev, deleted, ${walk.treeColumn}, b.body`;
  const desc = range.descending === true;
  let judging = true;
  yield* keysetPagesAsync(
    range.start,
    (row: BodyRow) => row.id,
    GROWING_PAGES,
    async ({ from, first: firstPage, limit }) => {
      const fromOp = desc ? (firstPage ? '<=' : '<') : firstPage ? '>=' : '>';
      const order = `ORDER BY id${desc ? ' DESC' : ''}`;
      if (!judging) {
        const { where, params } = rangeWhere(range, from, fromOp, 'NOT deleted', 2);
        const text = `SELECT ${columns} FROM ${table} WHERE db_id = $1${where} ${order} LIMIT $${2 + params.length}`;
        return walk.query<BodyRow>(named(text), [walk.dbId, ...params, limit]);
      }
      const { where, params } = rangeWhere(range, from, fromOp, `NOT deleted${filter}`, first);
      const text = `SELECT ${columns} FROM ${table} WHERE db_id = $1${where} ${order} LIMIT $${first + params.length}`;
      const rows = await walk.query<BodyRow>(named(text), [walk.dbId, ...filterParams, ...params, limit]);
      const last = rows[rows.length - 1];
      // A full page: the walk goes on, judged only if this page kept at most half of it.
      if (last !== undefined && rows.length === limit) {
        const walked = rangeWhere(range, from, fromOp, '', 2);
        const upTo = `id ${desc ? '>=' : '<='} $${2 + walked.params.length}`;
        const count = `SELECT count(*) AS n FROM ${schema}.docs WHERE db_id = $1${walked.where} AND ${upTo}`;
        const [row] = await walk.query<{ n: string }>(named(count), [walk.dbId, ...walked.params, last.id]);
        if (rows.length * 2 > Number(row?.n ?? 0)) judging = false;
      }
      return rows;
    },
  );
}

/**
 * Whether a body's member (`member`: a text parameter) is an integer that fails `comparison`
 * (applied to it as an int8): true or false, never NULL. Only a member spelled as an integer of at
 * most 18 digits is judged (it fits an int8; a longer one is past 2^53, for the matcher). A body
 * with a `\u` escape is not parsed here: PostgreSQL's JSON functions fail a statement on `\u0000`
 * (and on any escape past ASCII in a database not in UTF-8), where the document layer's parser
 * (json/parse.ts) accepts it; that parser also keeps every body within what `json` reads (strict
 * RFC 8259, at most 1,000 levels deep). `CASE` orders the test before the parse; `LIKE` without an
 * escape character finds the `\u` a little cheaper than `strpos`.
 */
function outOfBound(member: string, comparison: string): string {
  const integer = `substring((b.body::json -> ${member})::text from '^-?[0-9]{1,18}$')::int8`;
  return `(CASE WHEN b.body NOT LIKE '%\\u%' ESCAPE '' THEN ${integer} END ${comparison}) IS FALSE`;
}

/**
 * `bound` as a comparison of an integer with an integer that gives the same answer for every
 * integer member (undefined: `=` a number that is not an integer, which no integer equals).
 * Members are compared exactly, which for a bound below 2^53 in size answers as a comparison of
 * doubles does (mango/number-bounds.ts).
 */
export function integerComparison(bound: NumberBound): { op: NumberBound['op']; value: number } | undefined {
  const { op, value } = bound;
  switch (op) {
    case '<':
    case '>=':
      return { op, value: Math.ceil(value) };
    case '<=':
    case '>':
      return { op, value: Math.floor(value) };
    case '=':
      return Number.isInteger(value) ? { op, value } : undefined;
  }
}
