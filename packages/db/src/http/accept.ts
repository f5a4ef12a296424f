/**
 * Whether a request's `Accept` takes a media type (mochiweb's accepts_content_type): no header
 * takes everything; otherwise an entry naming the type, its `major/*` or `*\/*`, with q > 0.
 */
export function acceptsType(header: string | string[] | undefined, type: string): boolean {
  if (header === undefined) return true;
  const text = Array.isArray(header) ? header.join(',') : header;
  const major = `${type.split('/')[0]}/*`;
  return text.split(',').some((entry) => {
    const [name, ...params] = entry.split(';').map((p) => p.trim().toLowerCase());
    if (name !== type && name !== major && name !== '*/*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
