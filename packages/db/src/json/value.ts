/**
 * The JSON value model the database keeps documents in. It differs from what `JSON.parse`
 * gives in three ways CouchDB cares about (the rev id hashes the decoded body):
 * integers of any size are exact, `1.0` stays a float distinct from `1`, and object members
 * keep the order they were sent in (plain JS objects move integer-like keys first).
 *
 * A plain `number` in the tree is an integer when `Number.isSafeInteger(n)`, else a float.
 * The two cases a plain number cannot express are `JsonNumber`s.
 */
export type JsonValue = null | boolean | number | string | JsonNumber | JsonValue[] | JsonObject;

/**
 * A number whose spelling matters: an integer outside ±(2^53-1), kept as exact decimal
 * text, or a float whose value happens to be a safe integer (`1.0`, `1e2` → `100.0`).
 */
export class JsonNumber {
  /** The canonical output text: digits for an integer, digits + ".0" for such a float. */
  readonly text: string;
  readonly isFloat: boolean;

  private constructor(text: string, isFloat: boolean) {
    this.text = text;
    this.isFloat = isFloat;
  }

  /** An integer from its decimal text (optional '-', digits, no leading zeros). */
  static integer(text: string): JsonNumber {
    if (!/^-?(0|[1-9][0-9]*)$/.test(text)) throw new RangeError(`not an integer: ${text}`);
    if (text === '-0') text = '0';
    return new JsonNumber(text, false);
  }

  /** A float whose value is integral and safe (else it would be a plain number); -0 → 0.0. */
  static float(value: number): JsonNumber {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integral float: ${value}`);
    // String(-0) is "0", which is what CouchDB gives back for -0.0.
    return new JsonNumber(`${String(value)}.0`, true);
  }

  /** The nearest JS number (big integers lose precision here). */
  toNumber(): number {
    return Number(this.text);
  }

  /** The exact integer value; throws for a float. */
  toBigInt(): bigint {
    if (this.isFloat) throw new RangeError(`${this.text} is a float`);
    return BigInt(this.text);
  }

  toString(): string {
    return this.text;
  }
}

/**
 * Object members in order. Keys are unique (the parser collapses duplicates); a lookup
 * index is built lazily for large objects so small ones stay two arrays.
 */
export class JsonObject {
  keys: string[];
  values: JsonValue[];
  private index: Map<string, number> | undefined;
  /**
   * Set by the parser when this object's source text is already canonical (what
   * `stringifyJson` would write): `source.slice(sourceStart, sourceEnd)`. `sourceSpans` holds
   * [start, end) of every member whose key starts with `_`, in member order (undefined when
   * there is none), so such members can be cut out of the text. `set` and `delete` drop it;
   * nothing may change `keys` or `values` (or a nested value) behind its back.
   */
  private source: string | undefined;
  private sourceStart: number;
  private sourceEnd: number;
  private sourceSpans: number[] | undefined;

  constructor(keys: string[] = [], values: JsonValue[] = []) {
    this.keys = keys;
    this.values = values;
    this.index = undefined;
    this.source = undefined;
    this.sourceStart = 0;
    this.sourceEnd = 0;
    this.sourceSpans = undefined;
  }

  /**
   * For the parser only: records that `text.slice(start, end)` is this object exactly as
   * `stringifyJson` writes it, and where its `_` members are (see `canonicalText`).
   */
  static withSource(
    keys: string[],
    values: JsonValue[],
    text: string,
    start: number,
    end: number,
    spans: number[] | undefined,
  ): JsonObject {
    const object = new JsonObject(keys, values);
    object.source = text;
    object.sourceStart = start;
    object.sourceEnd = end;
    object.sourceSpans = spans;
    return object;
  }

  /**
   * The canonical text (`stringifyJson`) of this object without the `omit` members, taken from
   * the parsed source when the parser proved it canonical; undefined when it did not (or when
   * `omit` names a member not starting with `_`). Cheaper than stringifying the members again.
   */
  canonicalText(omit?: ReadonlySet<string>): string | undefined {
    const text = this.source;
    if (text === undefined) return undefined;
    const spans = this.sourceSpans;
    if (omit === undefined || spans === undefined) {
      if (omit !== undefined) for (const key of this.keys) if (omit.has(key)) return undefined;
      return text.slice(this.sourceStart, this.sourceEnd);
    }
    const { keys } = this;
    // The members between cut ones, each run without the commas next to a cut member.
    let out = '';
    let runs = 0;
    let runStart = this.sourceStart + 1;
    let u = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (key.charCodeAt(0) !== 95 /* _ */) {
        if (omit.has(key)) return undefined;
        continue;
      }
      const start = spans[u]!;
      const end = spans[u + 1]!;
      u += 2;
      if (!omit.has(key)) continue;
      // A cut member is preceded by a comma unless it comes first.
      const runEnd = start === this.sourceStart + 1 ? start : start - 1;
      if (runEnd > runStart) {
        out += runs === 0 ? text.slice(runStart, runEnd) : `,${text.slice(runStart, runEnd)}`;
        runs++;
      }
      // Past the comma (or the closing brace) after the cut member.
      runStart = end + 1;
    }
    const runEnd = this.sourceEnd - 1;
    if (runEnd > runStart) {
      out += runs === 0 ? text.slice(runStart, runEnd) : `,${text.slice(runStart, runEnd)}`;
    }
    return `{${out}}`;
  }

  /** Builds an object from [key, value] pairs; a repeated key replaces the earlier value in place. */
  static from(entries: Iterable<readonly [string, JsonValue]>): JsonObject {
    const object = new JsonObject();
    for (const [key, value] of entries) object.set(key, value);
    return object;
  }

  get size(): number {
    return this.keys.length;
  }

  get(key: string): JsonValue | undefined {
    const i = this.indexOf(key);
    return i < 0 ? undefined : this.values[i];
  }

  has(key: string): boolean {
    return this.indexOf(key) >= 0;
  }

  /** Replaces the value of an existing key in place, or appends the key. */
  set(key: string, value: JsonValue): this {
    const i = this.indexOf(key);
    this.source = undefined;
    if (i >= 0) {
      this.values[i] = value;
    } else {
      this.keys.push(key);
      this.values.push(value);
      this.index?.set(key, this.keys.length - 1);
    }
    return this;
  }

  /** Removes a key (members after it move up); returns whether it was there. */
  delete(key: string): boolean {
    const i = this.indexOf(key);
    if (i < 0) return false;
    this.source = undefined;
    this.keys.splice(i, 1);
    this.values.splice(i, 1);
    this.index = undefined;
    return true;
  }

  /** A new object without the given keys, order kept (values are shared, not copied). */
  without(keys: ReadonlySet<string>): JsonObject {
    const outKeys: string[] = [];
    const outValues: JsonValue[] = [];
    for (let i = 0; i < this.keys.length; i++) {
      if (keys.has(this.keys[i]!)) continue;
      outKeys.push(this.keys[i]!);
      outValues.push(this.values[i]!);
    }
    return new JsonObject(outKeys, outValues);
  }

  *entries(): IterableIterator<[string, JsonValue]> {
    for (let i = 0; i < this.keys.length; i++) yield [this.keys[i]!, this.values[i]!];
  }

  [Symbol.iterator](): IterableIterator<[string, JsonValue]> {
    return this.entries();
  }

  private indexOf(key: string): number {
    const keys = this.keys;
    // A linear scan beats hashing for the small objects documents are made of.
    if (keys.length <= 16) return keys.indexOf(key);
    if (this.index === undefined || this.index.size !== keys.length) {
      this.index = new Map();
      for (let i = 0; i < keys.length; i++) this.index.set(keys[i]!, i);
    }
    return this.index.get(key) ?? -1;
  }
}

/** True for a value that is a float in CouchDB's eyes (as opposed to an integer). */
export function isFloat(value: number | JsonNumber): boolean {
  return typeof value === 'number' ? !Number.isSafeInteger(value) : value.isFloat;
}
