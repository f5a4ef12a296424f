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

  constructor(keys: string[] = [], values: JsonValue[] = []) {
    this.keys = keys;
    this.values = values;
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
      if (keys.has(this.keys[i])) continue;
      outKeys.push(this.keys[i]);
      outValues.push(this.values[i]);
    }
    return new JsonObject(outKeys, outValues);
  }

  *entries(): IterableIterator<[string, JsonValue]> {
    for (let i = 0; i < this.keys.length; i++) yield [this.keys[i], this.values[i]];
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
      for (let i = 0; i < keys.length; i++) this.index.set(keys[i], i);
    }
    return this.index.get(key) ?? -1;
  }
}

/** True for a value that is a float in CouchDB's eyes (as opposed to an integer). */
export function isFloat(value: number | JsonNumber): boolean {
  return typeof value === 'number' ? !Number.isSafeInteger(value) : value.isFloat;
}
