/**
 * Erlang's `~p` / `~w` text of a decoded JSON value (jiffy's EJSON: strings are binaries,
 * objects `{[{Key, Value}]}`, null/true/false atoms), for CouchDB's builtin-reduce error
 * reasons. Only the single-line form; the pretty printer's line breaks are not reproduced.
 */
export function formatErlangTerm(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'boolean':
      return String(value);
    case 'number':
      return formatNumber(value);
    case 'string':
      return formatBinary(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(formatErlangTerm).join(',')}]`;
      const members = Object.entries(value as Record<string, unknown>).map(
        ([k, v]) => `{${formatBinary(k)},${formatErlangTerm(v)}}`,
      );
      return `{[${members.join(',')}]}`;
    }
    default:
      return String(value);
  }
}

/** The proplist inside an object: `[{<<"k">>,v},…]`. */
export function formatProplist(value: Record<string, unknown>): string {
  const text = formatErlangTerm(value);
  return text.slice(1, -1);
}

function formatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 53) return String(n);
  // Erlang prints floats with the shortest round-trip digits, always with a '.' and 'e' form
  // for large/small magnitudes (e.g. 1.5, 1.0e20).
  const text = String(n);
  if (text.includes('e')) {
    const [mant, exp] = text.split('e');
    return `${mant!.includes('.') ? mant : `${mant}.0`}e${exp!.replace('+', '')}`;
  }
  return text.includes('.') ? text : `${text}.0`;
}

function formatBinary(s: string): string {
  const escaped = s.replace(/[\\"]/g, (c) => `\\${c}`);
  let latin1 = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 127) {
      latin1 = false;
      break;
    }
  }
  return latin1 ? `<<"${escaped}">>` : `<<"${escaped}"/utf8>>`;
}
