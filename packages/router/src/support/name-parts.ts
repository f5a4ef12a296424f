/**
 * Route names from their parts (Rails' `[...].compact.join('_')`): joining them, telling
 * whether parts join to a given name without joining them, and whether a part can be in a name.
 */

/** A name part that takes part: not absent, not empty. */
export function present(part: string | undefined | null): part is string {
  return part !== undefined && part !== null && part !== '';
}

/** Whether an implicit route name starts as a name must (`_` or a letter; else the route gets none). */
export function startsValidName(name: string): boolean {
  const c = name.charCodeAt(0);
  if (c === 95) return true; // '_'
  const lower = c | 32; // a letter in lower case
  return lower >= 97 && lower <= 122;
}

/** Up to four name parts joined with `_`, skipping those absent or empty (no array: this runs per route). */
export function joinPresent(
  a: string | undefined,
  b: string | undefined,
  c: string | undefined,
  d: string | undefined,
): string {
  let out = present(a) ? a : '';
  if (present(b)) out = out === '' ? b : `${out}_${b}`;
  if (present(c)) out = out === '' ? c : `${out}_${c}`;
  if (present(d)) out = out === '' ? d : `${out}_${d}`;
  return out;
}

/** Whether `joinPresent(a, b, c, d)` is `name`, compared in place (a scan of many records makes no strings). */
export function joinsTo(
  name: string,
  a: string | undefined,
  b: string | undefined,
  c: string | undefined,
  d: string | undefined,
): boolean {
  let at = partAt(name, 0, a);
  if (at >= 0) at = partAt(name, at, b);
  if (at >= 0) at = partAt(name, at, c);
  if (at >= 0) at = partAt(name, at, d);
  return at === name.length;
}

/** Where `name` goes on after `part` read at `at` (with its `_` unless first); `at` for a part that takes no part, -1 when it differs. */
function partAt(name: string, at: number, part: string | undefined): number {
  if (!present(part)) return at;
  if (at > 0) {
    if (name.charCodeAt(at) !== 95) return -1; // '_'
    at++;
  }
  return name.startsWith(part, at) ? at + part.length : -1;
}

/**
 * Whether a part holds only word characters (regexp `\w`): names joined from such parts are
 * valid route names whenever they start with a letter or `_`.
 */
export function isNamePart(part: string | undefined): boolean {
  if (part === undefined) return true;
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return false;
  }
  return true;
}
