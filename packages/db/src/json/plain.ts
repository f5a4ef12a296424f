import { JsonNumber, JsonObject, type JsonValue } from './value.js';

/**
 * What `JSON.parse` of the value's text would give: JsonNumber → number, JsonObject →
 * a plain object (so integer-like keys move first, as they would anyway). A "__proto__"
 * member becomes an own property, as with JSON.parse, never the prototype.
 */
export function toPlain(value: JsonValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof JsonNumber) return value.toNumber();
  const out: Record<string, unknown> = {};
  const { keys, values } = value;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: toPlain(values[i]!),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      out[key] = toPlain(values[i]!);
    }
  }
  return out;
}

/**
 * A JSON value from a JS value built by our own code, with `JSON.stringify`'s rules for the
 * odd cases: objects keep their own enumerable key order, `toJSON` is honoured, undefined /
 * functions / symbols are dropped from objects and become null in arrays, non-finite numbers
 * become null. Numbers follow the model's rule (safe integer → integer, else float); a bigint
 * is an exact integer. JsonNumber and JsonObject values are taken as they are.
 */
export function fromPlain(value: unknown): JsonValue {
  const result = convert(value);
  if (result === undefined) throw new TypeError(`${typeof value} has no JSON form`);
  return result;
}

function convert(value: unknown): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null;
    case 'bigint':
      return Number.isSafeInteger(Number(value)) && BigInt(Number(value)) === value
        ? Number(value)
        : JsonNumber.integer(value.toString());
    case 'object': {
      if (value === null) return null;
      if (value instanceof JsonNumber || value instanceof JsonObject) return value;
      const withToJson = value as { toJSON?: unknown };
      if (typeof withToJson.toJSON === 'function') return convert((withToJson.toJSON as () => unknown)());
      if (Array.isArray(value)) return value.map((item) => convert(item) ?? null);
      const keys: string[] = [];
      const values: JsonValue[] = [];
      for (const key of Object.keys(value)) {
        const item = convert((value as Record<string, unknown>)[key]);
        if (item === undefined) continue;
        keys.push(key);
        values.push(item);
      }
      return new JsonObject(keys, values);
    }
    default:
      return undefined; // undefined, function, symbol
  }
}
