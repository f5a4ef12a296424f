/**
 * What a Mango text index makes of a document (CouchDB's mango_native_proc `index_doc`): each
 * leaf value a field named for its path and type (./text-names.ts) — strings, numbers,
 * booleans, and `null` as the boolean `true` of a `:null` field — each array its `[]:length`
 * when `index_array_lengths`, every string once more in `$default` when the default field is on,
 * and every field's name in `$fieldnames` (what `$exists` and friends query). A fields list keeps
 * only the fields it names (lengths and `$default` aside). The order is CouchDB's (it decides the
 * positions of a field's values).
 */
import type { JsonValue } from '../json/index.js';
import { JsonObject } from '../json/index.js';
import { textFieldName } from './text-names.js';

export interface TextEntryOptions {
  /** `all`, or the escaped `name_3atype` fields a fields list keeps. */
  fields: 'all' | ReadonlySet<string>;
  indexArrayLengths: boolean;
  defaultField: boolean;
}

/** One call of the index: a field's name and value. */
export type TextEntry = [name: string, value: string | number | boolean];

interface Field {
  name: string;
  type: string;
  value: string | number | boolean;
}

export function textEntries(doc: JsonValue, options: TextEntryOptions): TextEntry[] {
  let fields = valuesOf(doc, [], options);
  if (options.defaultField) {
    const defaults: Field[] = [];
    for (const f of fields)
      if (f.type === 'string') defaults.unshift({ name: '$default', type: 'string', value: f.value });
    fields = [...defaults, ...fields];
  }
  const names = [...new Set(fields.map((f) => f.name))].sort();
  return [...names.map((name): TextEntry => ['$fieldnames', name]), ...fields.map((f): TextEntry => [f.name, f.value])];
}

function valuesOf(value: JsonValue, path: readonly string[], options: TextEntryOptions): Field[] {
  if (value instanceof JsonObject) {
    let acc: Field[] = [];
    for (let i = 0; i < value.keys.length; i++)
      acc = valuesOf(value.values[i]!, [...path, value.keys[i]!], options).concat(acc);
    return acc;
  }
  if (Array.isArray(value)) {
    const inner = [...path, '[]'];
    let acc: Field[] = options.indexArrayLengths
      ? [{ name: textFieldName(inner, 'length'), type: 'length', value: value.length }]
      : [];
    for (const item of value) acc = valuesOf(item, inner, options).concat(acc);
    return acc;
  }
  if (typeof value === 'string') return field(path, 'string', value, options);
  if (typeof value === 'boolean') return field(path, 'boolean', value, options);
  if (value === null) return field(path, 'null', true, options);
  return field(path, 'number', Number(value.toString()), options);
}

function field(
  path: readonly string[],
  type: string,
  value: string | number | boolean,
  options: TextEntryOptions,
): Field[] {
  const name = textFieldName(path, type);
  return options.fields === 'all' || options.fields.has(name) ? [{ name, type, value }] : [];
}
