/** The WHERE conditions of PostgreSQL's walks of a database's documents by id. */
import type { IdRange } from '../records.js';

/**
 * The extra conditions (each starting with ` AND `) of a range walk whose next row is
 * `fromOp from` (`from` undefined: no bound); parameters are numbered from `first`.
 */
export function rangeWhere(
  range: IdRange,
  from: string | undefined,
  fromOp: string,
  filter: string,
  first: number,
): { where: string; params: string[] } {
  const desc = range.descending === true;
  let where = '';
  const params: string[] = [];
  if (from !== undefined) {
    params.push(from);
    where += ` AND id ${fromOp} $${first + params.length - 1}`;
  }
  if (range.end !== undefined) {
    const inclusive = range.inclusiveEnd !== false;
    params.push(range.end);
    where += ` AND id ${desc ? '>' : '<'}${inclusive ? '=' : ''} $${first + params.length - 1}`;
  }
  if (filter !== '') where += ` AND ${filter}`;
  return { where, params };
}
