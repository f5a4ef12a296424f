/**
 * Which of `gzip` and `identity` an `Accept-Encoding` header accepts (mochiweb's
 * accepted_encodings, case-insensitive, with q-values). Nothing acceptable, or a q-value that is
 * not a number, is a 406 here where CouchDB crashes with a 500.
 */
import { CouchError } from '../errors.js';

export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (name === undefined || name === '') continue;
    let weight = 1;
    for (const param of params) {
      const m = /^q\s*=\s*(.*)$/.exec(param);
      if (m === null) continue;
      weight = Number(m[1]);
      if (m[1] === '' || !Number.isFinite(weight)) {
        throw new CouchError('not_acceptable', 'bad_accept_encoding_value');
      }
    }
    q.set(name, weight);
  }
  const star = q.get('*');
  const gzip = q.get('gzip') ?? star ?? 0;
  // identity is acceptable unless refused by name, or by `*;q=0` without naming it.
  const identity = q.get('identity') ?? (star === 0 ? 0 : 1);
  if (gzip <= 0 && identity <= 0) throw new CouchError('not_acceptable', 'unacceptable_encoding');
  return gzip > 0;
}
