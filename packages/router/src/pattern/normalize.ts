/**
 * Path spelling rules shared by declaration and recognition, as Rails applies them:
 * declared paths are squeezed, stripped of trailing slashes and get `(.:format)`;
 * request paths are squeezed and stripped the same way before matching.
 */

/**
 * Whether no rule of `normalizePath` could change the path: no doubled or trailing slash, no
 * escape, no group. Searched for with indexOf: a route declaration normalizes a few paths, and
 * this runs tens of thousands of times while a large set is declared.
 */
function isPlainPath(path: string): boolean {
  return (
    path.charCodeAt(path.length - 1) !== 47 &&
    path.indexOf('//') === -1 &&
    path.indexOf('%') === -1 &&
    path.indexOf('(') === -1
  );
}

/** Rails' `Mapper.normalize_path`: one leading slash, no doubled or trailing slashes, `/(` → `(/`. */
export function normalizePath(path: string): string {
  // Most paths (`/posts/:post_id/comments`) are normal already and only need their leading slash.
  const slashed = path.charCodeAt(0) === 47 ? path : `/${path}`;
  if (isPlainPath(slashed)) return slashed;
  let p = `/${path}`.replace(/\/{2,}/g, '/');
  if (p !== '/') p = p.replace(/\/+$/, '');
  p = p.replace(/%[a-f0-9]{2}/g, (m) => m.toUpperCase());
  // "/(/:locale)" reads better as "(/:locale)": move the slash into the optional group.
  p = p.replace(/\/(\(+)\/?/g, '$1/');
  // A path of optional segments only keeps a leading "/" so it still generates "/" alone.
  if (/^(\(+[^)]+\))(\(+\/:[^)]+\))*$/.test(p)) p = p.replace(/^(\(+)\//, '/$1');
  return p;
}

/** Rails' `Mapper.normalize_name`: `admin/users` → `admin_users`. */
export function normalizeName(name: string): string {
  return normalizePath(name).slice(1).replace(/\//g, '_');
}

/** Whether the path ends with `/`, `.:format` or `(.:format)` (closing groups after it too): endsWith, not a regexp scan. */
function endsWithFormat(path: string): boolean {
  if (path.endsWith('/') || path.endsWith('.:format')) return true;
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 41) end--; // ')'
  return end < path.length && path.endsWith('(.:format', end);
}

/**
 * Adds the format segment: `true` makes it required, `false` leaves it out, anything else
 * appends the optional `(.:format)` unless the path already ends with one or with a slash.
 */
export function withFormat(path: string, format: unknown): string {
  if (format === true) return `${path}.:format`;
  if (format !== false && !endsWithFormat(path)) return `${path}(.:format)`;
  return path;
}

// Characters URI::DEFAULT_PARSER.escape leaves alone in a declared path.
const DECLARED_SAFE = /^[-_.!~*'()a-zA-Z0-9;/?:@&=+$,[\]]*$/;

/** Percent-encodes what a declared path may not hold as is (spaces, non-ASCII...). */
export function escapeDeclaredPath(path: string): string {
  if (DECLARED_SAFE.test(path)) return path;
  let out = '';
  for (const ch of path) out += DECLARED_SAFE.test(ch) ? ch : percentEncode(ch);
  return out;
}

const UTF8 = new TextEncoder();

/** TextEncoder, not Buffer: routes are declared on runtimes without Node's globals too. */
function percentEncode(ch: string): string {
  let out = '';
  for (const byte of UTF8.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/**
 * The path a request is matched on: query and fragment dropped, slashes squeezed, trailing
 * slash removed, percent escapes upper-cased. Already-normal paths are returned untouched.
 */
export function normalizeRequestPath(raw: string): string {
  // One pass decides whether anything needs fixing; most paths come back as they are.
  const n = raw.length;
  let cut = n;
  let fix = n === 0 || raw.charCodeAt(0) !== 47;
  let percent = false;
  let prevSlash = false;
  for (let i = 0; i < n; i++) {
    const c = raw.charCodeAt(i);
    if (c === 63 || c === 35) {
      cut = i; // '?' or '#'
      break;
    }
    if (c === 47) {
      if (prevSlash) fix = true;
      prevSlash = true;
    } else {
      prevSlash = false;
      if (c === 37) percent = true;
    }
  }
  let path = cut === n ? raw : raw.slice(0, cut);
  if (path.length > 1 && prevSlash) fix = true;
  if (fix) {
    path = `/${path}`.replace(/\/{2,}/g, '/');
    if (path.length > 1) path = path.replace(/\/+$/, '');
    if (path === '') path = '/';
  }
  if (percent) path = path.replace(/%[a-f0-9]{2}/g, (m) => m.toUpperCase());
  return path;
}

/** Decodes a matched param value; a malformed escape is kept as written (as Rails does). */
export function decodeParam(value: string): string {
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
