/**
 * How CouchDB's Mango error reasons print the offending JSON: the EJSON term (strings are
 * binaries, objects `{[{Key,Value}]}`, null/true/false atoms) through Erlang's `~w` (binaries
 * as byte lists: `<<116,121,112,101>>`) or `~p` (printable binaries quoted: `<<"n">>`).
 */
import { type JsonValue, JsonNumber } from '../json/index.js';

/** `io_lib:format("~w", [Term])`. */
export function formatW(value: JsonValue): string {
  return format(value, (s) => `<<${[...Buffer.from(s, 'utf8')].join(',')}>>`);
}

/** `io_lib:format("~p", [Term])`, single-line. */
export function formatP(value: JsonValue): string {
  return format(value, printBinary);
}

function format(value: JsonValue, binary: (s: string) => string): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return binary(value);
  if (typeof value === 'number') return formatErlangNumber(value);
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => format(v, binary)).join(',')}]`;
  const members = [...value.entries()].map(([k, v]) => `{${binary(k)},${format(v, binary)}}`);
  return `{[${members.join(',')}]}`;
}

/** An integer as digits; a float with Erlang's shortest digits, always with a '.' (`1.5`, `1.0e20`). */
function formatErlangNumber(n: number): string {
  if (Number.isSafeInteger(n)) return String(n);
  const text = String(n);
  if (text.includes('e')) {
    const [mantissa, exponent] = text.split('e') as [string, string];
    return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}e${exponent.replace('+', '')}`;
  }
  return text.includes('.') ? text : `${text}.0`;
}

/** `~p` of a binary: `<<>>`, `<<"text">>` when printable (`/utf8` beyond ASCII), else bytes. */
function printBinary(s: string): string {
  if (s === '') return '<<>>';
  let text = '';
  let ascii = true;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const named = NAMED_ESCAPES[c];
    if (named !== undefined) text += named;
    else if (c < 0x20 || c === 0x7f)
      return formatW(s); // not printable: a byte list
    else {
      if (c > 0x7f) ascii = false;
      text += ch;
    }
  }
  return ascii ? `<<"${text}">>` : `<<"${text}"/utf8>>`;
}

const NAMED_ESCAPES: Record<number, string> = {
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
  27: '\\e',
  34: '\\"',
  92: '\\\\',
};
