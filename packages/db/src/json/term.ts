import { JsonNumber, JsonObject, type JsonValue } from './value.js';

/**
 * Erlang external term format, as `term_to_binary(T, [{minor_version, 1}])` writes it on
 * OTP 25 — the bytes CouchDB hashes into rev ids. Only the terms a JSON body decodes to
 * (jiffy's EJSON) plus what the rev id needs.
 */
enum Tag {
  NewFloat = 70,
  SmallInteger = 97,
  Integer = 98,
  Atom = 100,
  SmallTuple = 104,
  Nil = 106,
  String = 107,
  List = 108,
  Binary = 109,
  SmallBig = 110,
  LargeBig = 111,
}

/** The external term format body of a JSON value (without the leading 131 version byte). */
export function encodeTerm(value: JsonValue): Buffer {
  const writer = new TermWriter();
  writer.value(value);
  return writer.finish();
}

/** Appends terms to a growing buffer. */
export class TermWriter {
  private buf = Buffer.allocUnsafe(256);
  private len = 0;

  /** Empties the writer for reuse (its buffer stays). */
  reset(): this {
    this.len = 0;
    return this;
  }

  /** The bytes written so far (a copy-free view). */
  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  byte(b: number): this {
    this.reserve(1);
    this.buf[this.len++] = b;
    return this;
  }

  /** ATOM_EXT: OTP 25 still writes Latin-1 atoms with the old 2-byte-length tag. */
  atom(name: string): this {
    this.reserve(3 + name.length);
    const buf = this.buf;
    let at = this.len;
    buf[at] = Tag.Atom;
    buf[at + 1] = name.length >>> 8;
    buf[at + 2] = name.length & 0xff;
    at += 3;
    // Latin-1: one byte per character (the low byte, as Buffer.write 'latin1' takes it).
    for (let i = 0; i < name.length; i++) buf[at++] = name.charCodeAt(i);
    this.len = at;
    return this;
  }

  /** The smallest of SMALL_INTEGER_EXT, INTEGER_EXT, SMALL_BIG_EXT, LARGE_BIG_EXT that fits. */
  integer(n: number | bigint): this {
    if (typeof n === 'number') {
      if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
      if (n >= 0 && n <= 255) {
        this.reserve(2);
        this.buf[this.len] = Tag.SmallInteger;
        this.buf[this.len + 1] = n;
        this.len += 2;
        return this;
      }
      if (n >= -0x80000000 && n <= 0x7fffffff) {
        this.reserve(5);
        this.buf[this.len] = Tag.Integer;
        this.buf.writeInt32BE(n, this.len + 1);
        this.len += 5;
        return this;
      }
      // Safe integers divide by 256 exactly, so no bigint is needed.
      const digits: number[] = [];
      for (let m = Math.abs(n); m > 0; m = Math.floor(m / 256)) digits.push(m % 256);
      return this.big(n < 0, digits);
    }
    if (n >= -0x80000000n && n <= 0x7fffffffn) return this.integer(Number(n));
    const negative = n < 0n;
    const digits: number[] = [];
    for (let m = negative ? -n : n; m > 0n; m >>= 8n) digits.push(Number(m & 0xffn));
    return this.big(negative, digits);
  }

  /** NEW_FLOAT_EXT: 8-byte big-endian IEEE 754. */
  float(n: number): this {
    this.reserve(9);
    this.buf[this.len] = Tag.NewFloat;
    this.buf.writeDoubleBE(n, this.len + 1);
    this.len += 9;
    return this;
  }

  /** BINARY_EXT of raw bytes, or of a string's UTF-8. */
  binary(data: Uint8Array | string): this {
    if (typeof data === 'string') {
      this.reserve(5 + data.length * 3);
      const buf = this.buf;
      const at = this.len;
      const size = data.length <= 64 ? writeShort(buf, data, at + 5) : buf.write(data, at + 5, 'utf8');
      buf[at] = Tag.Binary;
      buf[at + 1] = size >>> 24;
      buf[at + 2] = (size >>> 16) & 0xff;
      buf[at + 3] = (size >>> 8) & 0xff;
      buf[at + 4] = size & 0xff;
      this.len = at + 5 + size;
      return this;
    }
    this.reserve(5 + data.length);
    this.buf[this.len] = Tag.Binary;
    this.buf.writeUInt32BE(data.length, this.len + 1);
    this.buf.set(data, this.len + 5);
    this.len += 5 + data.length;
    return this;
  }

  /**
   * An Erlang string (a list of bytes, as `binary_to_list` makes one): STRING_EXT, NIL_EXT when
   * empty, and past 65,535 bytes a LIST_EXT of SMALL_INTEGER_EXTs (STRING_EXT's length is 16 bits).
   */
  string(bytes: Uint8Array): this {
    if (bytes.length === 0) return this.nil();
    if (bytes.length > 0xffff) {
      this.list(bytes.length);
      for (const byte of bytes) this.integer(byte);
      return this.nil();
    }
    this.reserve(3 + bytes.length);
    this.buf[this.len] = Tag.String;
    this.buf.writeUInt16BE(bytes.length, this.len + 1);
    this.buf.set(bytes, this.len + 3);
    this.len += 3 + bytes.length;
    return this;
  }

  /** SMALL_TUPLE_EXT header; the elements follow. */
  tuple(arity: number): this {
    return this.byte(Tag.SmallTuple).byte(arity);
  }

  /** LIST_EXT header for a proper list of `length` > 0 elements; they follow, then `nil()`. */
  list(length: number): this {
    this.reserve(5);
    this.buf[this.len] = Tag.List;
    this.buf.writeUInt32BE(length, this.len + 1);
    this.len += 5;
    return this;
  }

  /** NIL_EXT: `[]`, also the tail of every proper list. */
  nil(): this {
    return this.byte(Tag.Nil);
  }

  /**
   * A JSON value as jiffy decodes it; `omit`: a member of a top-level object left out (as if
   * the object had never had it), which saves a copy of the object without it.
   */
  value(value: JsonValue, omit?: string): this {
    switch (typeof value) {
      case 'string':
        return this.binary(value);
      case 'boolean':
        return this.atom(value ? 'true' : 'false');
      case 'number':
        return Number.isSafeInteger(value) ? this.integer(value) : this.float(value);
      case 'object':
        if (value === null) return this.atom('null');
        if (Array.isArray(value)) return this.array(value);
        if (value instanceof JsonObject) return this.object(value, omit);
        if (value instanceof JsonNumber) {
          return value.isFloat ? this.float(value.toNumber()) : this.integer(value.toBigInt());
        }
    }
    throw new TypeError(`not a JSON value: ${Object.prototype.toString.call(value)}`);
  }

  private array(items: JsonValue[]): this {
    if (items.length === 0) return this.nil();
    if (items.length < 65536 && items.every(isByte)) {
      // term_to_binary writes a list of small integers as STRING_EXT.
      this.reserve(3 + items.length);
      this.buf[this.len] = Tag.String;
      this.buf.writeUInt16BE(items.length, this.len + 1);
      this.len += 3;
      for (const item of items) this.buf[this.len++] = item as number;
      return this;
    }
    this.list(items.length);
    for (const item of items) this.value(item);
    return this.nil();
  }

  /** `{[{Key, Value}, ...]}`: a 1-tuple holding the proplist. */
  private object(object: JsonObject, omit?: string): this {
    this.tuple(1);
    const { keys, values } = object;
    const skipped = omit === undefined ? -1 : keys.indexOf(omit);
    const length = skipped < 0 ? keys.length : keys.length - 1;
    if (length === 0) return this.nil();
    this.list(length);
    for (let i = 0; i < keys.length; i++) {
      if (i === skipped) continue;
      // SMALL_TUPLE_EXT of arity 2: {Key, Value}
      this.reserve(2);
      this.buf[this.len] = Tag.SmallTuple;
      this.buf[this.len + 1] = 2;
      this.len += 2;
      this.binary(keys[i]!).value(values[i]!);
    }
    return this.nil();
  }

  private big(negative: boolean, digits: number[]): this {
    const header = digits.length <= 255 ? 3 : 6;
    this.reserve(header + digits.length);
    if (digits.length <= 255) {
      this.buf[this.len] = Tag.SmallBig;
      this.buf[this.len + 1] = digits.length;
    } else {
      this.buf[this.len] = Tag.LargeBig;
      this.buf.writeUInt32BE(digits.length, this.len + 1);
    }
    this.len += header;
    this.buf[this.len - 1] = negative ? 1 : 0;
    for (const d of digits) this.buf[this.len++] = d; // little-endian digits
    return this;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}

function isByte(item: JsonValue): boolean {
  return typeof item === 'number' && Number.isInteger(item) && item >= 0 && item <= 255;
}

/**
 * Short ASCII strings copied byte by byte: cheaper than a call into Buffer.write for the keys
 * and small values that make up most of a document. Anything else goes through Buffer.write.
 */
function writeShort(buf: Buffer, text: string, at: number): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return buf.write(text, at, 'utf8');
    buf[at + i] = c;
  }
  return text.length;
}
