/**
 * `_find` bookmarks as CouchDB makes them: base64url of `term_to_binary([{startkey_docid, Id},
 * {startkey, Key}])`, the last row a page processed. Clients treat them as opaque; reading
 * CouchDB's own (also the zlib-compressed form `term_to_binary(_, [compressed])` gives) keeps a
 * bookmark from there usable here. Anything else is a 400 `invalid_bookmark`.
 */
import { inflateSync } from 'node:zlib';
import { CouchError } from '../errors.js';
import { type JsonValue, JsonNumber, JsonObject, TermWriter } from '../json/index.js';

export interface Bookmark {
  key: JsonValue;
  docId: string;
}

export function encodeBookmark({ key, docId }: Bookmark): string {
  const writer = new TermWriter();
  writer.byte(131).list(2);
  writer.tuple(2).atom('startkey_docid').binary(docId);
  writer.tuple(2).atom('startkey').value(key);
  writer.nil();
  return writer.finish().toString('base64url');
}

/** The bookmark a request sent; 400 `invalid_bookmark` when it is not one. */
export function decodeBookmark(text: string): Bookmark {
  const invalid = () => new CouchError('invalid_bookmark', `Invalid bookmark value: ${JSON.stringify(text)}`, 400);
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let term: Term;
  try {
    term = readTerm(Buffer.from(text, 'base64url'));
  } catch {
    throw invalid();
  }
  let key: JsonValue | undefined;
  let docId: string | undefined;
  if (Array.isArray(term)) {
    for (const item of term) {
      if (!(item instanceof Tuple) || item.items.length !== 2) continue;
      const [name, value] = item.items;
      if (name instanceof Atom && name.name === 'startkey_docid' && typeof value === 'string') docId = value;
      if (name instanceof Atom && name.name === 'startkey') key = toJson(value!);
    }
  }
  if (key === undefined || docId === undefined) throw invalid();
  return { key, docId };
}

class Atom {
  constructor(readonly name: string) {}
}
class Tuple {
  constructor(readonly items: Term[]) {}
}
type Term = number | bigint | string | Atom | Tuple | Term[];

/** The EJSON value of a term (jiffy's: `{[{K, V}]}` objects, atoms null/true/false). */
function toJson(term: Term): JsonValue {
  if (typeof term === 'string') return term;
  if (typeof term === 'bigint') return JsonNumber.integer(term.toString());
  if (typeof term === 'number') return term;
  if (term instanceof Atom) {
    if (term.name === 'null') return null;
    if (term.name === 'true') return true;
    if (term.name === 'false') return false;
    throw new Error(`atom ${term.name}`);
  }
  if (Array.isArray(term)) return term.map(toJson);
  const [members] = term.items;
  if (term.items.length !== 1 || !Array.isArray(members)) throw new Error('tuple');
  const object = new JsonObject();
  for (const member of members) {
    if (!(member instanceof Tuple) || member.items.length !== 2 || typeof member.items[0] !== 'string') {
      throw new Error('member');
    }
    object.set(member.items[0], toJson(member.items[1]!));
  }
  return object;
}

/** Reads an external-format term (version byte first), the kinds a bookmark holds. */
function readTerm(bytes: Buffer): Term {
  if (bytes[0] !== 131) throw new Error('version');
  if (bytes[1] === 80) {
    const size = bytes.readUInt32BE(2);
    const inflated = inflateSync(bytes.subarray(6));
    if (inflated.length !== size) throw new Error('size');
    return readTerm(Buffer.concat([Buffer.from([131]), inflated]));
  }
  let at = 1;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new Error('truncated');
  };
  /** An unsigned length of 1 or 4 bytes. */
  const length = (small: boolean): number => {
    need(small ? 1 : 4);
    at += small ? 1 : 4;
    return small ? bytes[at - 1]! : bytes.readUInt32BE(at - 4);
  };
  const read = (): Term => {
    need(1);
    const tag = bytes[at++]!;
    switch (tag) {
      case 97: // SMALL_INTEGER_EXT
        need(1);
        return bytes[at++]!;
      case 98: // INTEGER_EXT
        need(4);
        at += 4;
        return bytes.readInt32BE(at - 4);
      case 70: // NEW_FLOAT_EXT
        need(8);
        at += 8;
        return bytes.readDoubleBE(at - 8);
      case 110: // SMALL_BIG_EXT
      case 111: {
        // LARGE_BIG_EXT
        const n = length(tag === 110);
        need(1 + n);
        const negative = bytes[at++] === 1;
        let value = 0n;
        for (let i = n - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[at + i]!);
        at += n;
        return negative ? -value : value;
      }
      case 100: // ATOM_EXT
      case 118: {
        // ATOM_UTF8_EXT
        need(2);
        const len = bytes.readUInt16BE(at);
        at += 2;
        need(len);
        at += len;
        return new Atom(bytes.toString(tag === 100 ? 'latin1' : 'utf8', at - len, at));
      }
      case 119: {
        // SMALL_ATOM_UTF8_EXT
        need(1);
        const len = bytes[at++]!;
        need(len);
        at += len;
        return new Atom(bytes.toString('utf8', at - len, at));
      }
      case 104: // SMALL_TUPLE_EXT
      case 105: {
        // LARGE_TUPLE_EXT
        const arity = length(tag === 104);
        const items: Term[] = [];
        for (let i = 0; i < arity; i++) items.push(read());
        return new Tuple(items);
      }
      case 106: // NIL_EXT
        return [];
      case 107: {
        // STRING_EXT: a list of small integers
        need(2);
        const len = bytes.readUInt16BE(at);
        at += 2;
        need(len);
        const items = [...bytes.subarray(at, at + len)];
        at += len;
        return items;
      }
      case 108: {
        // LIST_EXT
        need(4);
        const len = bytes.readUInt32BE(at);
        at += 4;
        const items: Term[] = [];
        for (let i = 0; i < len; i++) items.push(read());
        const tail = read();
        if (!Array.isArray(tail) || tail.length !== 0) throw new Error('improper list');
        return items;
      }
      case 109: {
        // BINARY_EXT
        need(4);
        const len = bytes.readUInt32BE(at);
        at += 4;
        need(len);
        at += len;
        return bytes.toString('utf8', at - len, at);
      }
      default:
        throw new Error(`tag ${tag}`);
    }
  };
  const term = read();
  if (at !== bytes.length) throw new Error('trailing bytes');
  return term;
}
