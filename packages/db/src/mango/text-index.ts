/**
 * Mango `text` indexes as CouchDB stores them (mango_idx_text): a `"language": "query"` design
 * document's `indexes.{name}` is `{"index": def, "analyzer": ...}`, where `def` is the request's
 * `index` object checked and completed (`default_analyzer`, `default_field`, `selector`,
 * `partial_filter_selector`, `fields`, `index_array_lengths`, in that order) and the analyzer is
 * `keyword` for every field but `$default` (`standard`, or the default field's own).
 *
 * Each is kept as a search index (../search/search-design.ts): the same trees, updater and
 * queries as `_search`'s. Its index "function" is a marker the server's mapper recognizes
 * (./text-mapper.ts): the document's fields are computed here (./text-entries.ts), natively, and
 * the function only hands them to the search mapper.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import { fromPlain, type JsonValue, JsonObject, stringifyJson, toPlain } from '../json/index.js';
import type { SearchIndexDef } from '../search/search-design.js';
import { DesignIndexes } from './design-indexes.js';
import { formatW } from './erlang-text.js';
import { parseSelector, selectorToJson } from './selector.js';
import type { TextEntryOptions } from './text-entries.js';
import { escapeUserField } from './text-names.js';

export interface TextIndex {
  /** `_design/...` */
  ddoc: string;
  name: string;
  /** The stored definition (`def` as CouchDB keeps it). */
  def: JsonObject;
  /** The stored analyzer. */
  analyzer: JsonValue;
  /** `name:type` of each listed field; undefined: all fields. */
  columns: string[] | undefined;
  defaultField: boolean;
  partitioned: boolean;
  /**
   * `text` (a design document's `indexes.{name}`) or `nouveau` (its `nouveau.{name}`,
   * mango_idx_nouveau): the same definition and the same search index here, but `_find` prefers
   * text indexes, and each kind is listed, deleted and explained as its own.
   */
  type: TextIndexType;
}

export type TextIndexType = 'text' | 'nouveau';

/** The design document member each kind is stored in. */
export const TEXT_INDEX_MEMBER: Record<TextIndexType, string> = { text: 'indexes', nouveau: 'nouveau' };

const OPTION_ORDER = [
  'default_analyzer',
  'default_field',
  'selector',
  'partial_filter_selector',
  'fields',
  'index_array_lengths',
] as const;

const FIELD_TYPES = new Set(['string', 'number', 'boolean']);

/**
 * The `index` of a `"type": "text"` (or `"nouveau"`) `_index` request, checked and completed as
 * CouchDB stores it.
 */
export function textIndexDef(index: JsonValue, type: TextIndexType = 'text'): JsonObject {
  if (!(index instanceof JsonObject)) {
    throw new CouchError('invalid_index_text', `Text indexes must be an object, not: ${formatW(index)}`, 400);
  }
  for (const key of index.keys) {
    if (!(OPTION_ORDER as readonly string[]).includes(key)) {
      throw new CouchError('invalid_key', `Invalid key ${key} for this request.`, 400);
    }
  }
  const out = new JsonObject();
  out.set('default_analyzer', index.get('default_analyzer') ?? 'keyword');
  const defaultField = index.get('default_field') ?? new JsonObject();
  if (typeof defaultField !== 'boolean' && !(defaultField instanceof JsonObject)) {
    throw new CouchError('invalid_index_text', `Invalid default_field: ${formatW(defaultField)}`, 400);
  }
  out.set('default_field', defaultField);
  for (const key of ['selector', 'partial_filter_selector']) {
    const selector = index.get(key) ?? new JsonObject();
    if (!(selector instanceof JsonObject)) {
      throw new CouchError('invalid_selector_json', `Selector must be a JSON object, not: ${formatW(selector)}`, 400);
    }
    out.set(key, selectorToJson(parseSelector(selector)));
  }
  out.set('fields', fieldsOf(index.get('fields') ?? [], type));
  const lengths = index.get('index_array_lengths') ?? true;
  if (typeof lengths !== 'boolean') {
    throw new CouchError('invalid_bool_value', `Invalid boolean value: ${formatW(lengths)}`, 400);
  }
  out.set('index_array_lengths', lengths);
  return out;
}

/** `fields`: `"all_fields"` or `[]` for every field, else `[{"name", "type"}]` objects. */
function fieldsOf(fields: JsonValue, type: TextIndexType): JsonValue {
  if (fields === 'all_fields' || (Array.isArray(fields) && fields.length === 0)) return 'all_fields';
  // mango_idx_nouveau takes `text` fields too; this server's entries have no analyzed field of a name.
  if (
    type === 'nouveau' &&
    Array.isArray(fields) &&
    fields.some((f) => f instanceof JsonObject && f.get('type') === 'text')
  ) {
    throw new CouchError(
      'not_implemented',
      'Not available on this server yet: `text` fields of Mango nouveau indexes.',
    );
  }
  const valid =
    Array.isArray(fields) &&
    fields.every(
      (f) =>
        f instanceof JsonObject &&
        f.size === 2 &&
        typeof f.get('name') === 'string' &&
        f.get('name') !== '' &&
        FIELD_TYPES.has(f.get('type') as string),
    );
  if (!valid) {
    throw new CouchError(
      'invalid_index_fields_definition',
      `Text Index field definitions must be of the form {"name": "non-empty fieldname", "type": "boolean,number, or string"}. Def: ${formatW(fields)}`,
      400,
    );
  }
  return fields;
}

/** The analyzer CouchDB stores with a definition (mango_idx_text:construct_analyzer). */
export function textIndexAnalyzer(def: JsonObject): JsonValue {
  const { enabled, analyzer } = defaultFieldOptions(def);
  if (!enabled) return 'keyword';
  return JsonObject.from([
    ['name', 'perfield'],
    ['default', def.get('default_analyzer') ?? 'keyword'],
    ['fields', JsonObject.from([['$default', analyzer]])],
  ]);
}

function defaultFieldOptions(def: JsonObject): { enabled: boolean; analyzer: JsonValue } {
  const given = def.get('default_field');
  if (typeof given === 'boolean') return { enabled: given, analyzer: 'standard' };
  if (given instanceof JsonObject) {
    const enabled = given.get('enabled');
    return { enabled: enabled === undefined ? true : enabled === true, analyzer: given.get('analyzer') ?? 'standard' };
  }
  return { enabled: true, analyzer: 'standard' };
}

/** The text indexes of a design document (none unless its language is "query"; invalid ones left out). */
export function textIndexesOf(ddocId: string, body: JsonValue, dbPartitioned = false): TextIndex[] {
  if (!(body instanceof JsonObject) || body.get('language') !== 'query') return [];
  const options = body.get('options');
  const partitioned = dbPartitioned && !(options instanceof JsonObject && options.get('partitioned') === false);
  const out: TextIndex[] = [];
  for (const type of ['text', 'nouveau'] as const)
    out.push(...indexesOf(ddocId, body.get(TEXT_INDEX_MEMBER[type]), type, partitioned));
  return out;
}

function indexesOf(
  ddocId: string,
  indexes: JsonValue | undefined,
  type: TextIndexType,
  partitioned: boolean,
): TextIndex[] {
  if (!(indexes instanceof JsonObject)) return [];
  const out: TextIndex[] = [];
  for (let i = 0; i < indexes.keys.length; i++) {
    const entry = indexes.values[i]!;
    if (!(entry instanceof JsonObject)) continue;
    let def: JsonObject;
    try {
      def = textIndexDef(entry.get('index') ?? null, type);
    } catch {
      continue;
    }
    const fields = def.get('fields');
    out.push({
      ddoc: ddocId,
      name: indexes.keys[i]!,
      def: (entry.get('index') as JsonObject) ?? def,
      analyzer: entry.get('analyzer') ?? textIndexAnalyzer(def),
      columns: Array.isArray(fields)
        ? (fields as JsonObject[]).map((f) => `${f.get('name')}:${f.get('type')}`)
        : undefined,
      defaultField: defaultFieldOptions(def).enabled,
      partitioned,
      type,
    });
  }
  return out;
}

const kept = new DesignIndexes(textIndexesOf);

/** Every text index of the database's design documents, in design document order. */
export async function textIndexes(db: Database): Promise<TextIndex[]> {
  return (await kept.byDesignDoc(db)).flat();
}

/** How `GET /{db}/_index` lists a text index (`fields` as `[{"name": "type"}]`, `[]` for all). */
export function describeTextIndex(index: TextIndex): JsonObject {
  const def = new JsonObject();
  for (let i = 0; i < index.def.keys.length; i++) {
    const key = index.def.keys[i]!;
    const value = index.def.values[i]!;
    if (key !== 'fields') def.set(key, value);
    else if (!Array.isArray(value)) def.set(key, []);
    else
      def.set(
        key,
        (value as JsonObject[]).map((f) => JsonObject.from([[f.get('name') as string, f.get('type')!]])),
      );
  }
  return JsonObject.from([
    ['ddoc', index.ddoc],
    ['name', index.name],
    ['type', index.type],
    ['partitioned', index.partitioned],
    ['def', def],
  ]);
}

/** The marker that opens a text index's index function (./text-mapper.ts looks for it). */
export const TEXT_INDEX_MARKER = '/*divan-mango-text ';

/**
 * The search index a text index is kept as. Its source names the definition (the mapper reads it
 * back) and hands each document's precomputed entries to the search mapper; `emit`, not `index`,
 * because Mango's field names may start with `_` (`_5fid_3astring`), which `index` refuses.
 */
export function textSearchDef(index: TextIndex): SearchIndexDef {
  // `*/` cannot occur in the comment: JSON may write `/` as `\/`.
  const written = stringifyJson(index.def).replaceAll('*/', '*\\/');
  const source = `${TEXT_INDEX_MARKER}${written} */ function (doc) {
  var entries = doc.entries;
  for (var i = 0; i < entries.length; i++) emit(entries[i][0], [entries[i][1], {}]);
}`;
  const analyzer = toPlain(index.analyzer);
  // Hashed as plain JSON: the view manager's cleanup reads design documents that way.
  return {
    ddocId: index.ddoc,
    name: index.name,
    source,
    analyzer,
    signature: createHash('md5')
      .update(
        JSON.stringify({
          mangoText: 1,
          ddocId: index.ddoc,
          def: toPlain(index.def),
          analyzer,
          // A nouveau index never shares a text index's state.
          ...(index.type === 'nouveau' ? { nouveau: true } : {}),
        }),
      )
      .digest('hex'),
  };
}

/** The entry options of a stored definition (read back from a search group's source). */
export function entryOptionsOf(def: JsonObject): TextEntryOptions & { filter: JsonObject } {
  const fields = def.get('fields');
  const selector = def.get('partial_filter_selector');
  return {
    fields:
      Array.isArray(fields) && fields.length > 0
        ? new Set((fields as JsonObject[]).map((f) => escapeUserField(`${f.get('name')}:${f.get('type')}`)))
        : 'all',
    indexArrayLengths: def.get('index_array_lengths') !== false,
    defaultField: defaultFieldOptions(def).enabled,
    // A legacy index kept its filter as `selector`.
    filter:
      selector instanceof JsonObject && selector.size > 0
        ? selector
        : def.get('selector') instanceof JsonObject
          ? (def.get('selector') as JsonObject)
          : new JsonObject(),
  };
}

/** The signatures of a design document's text indexes (in use while it is). */
export function textIndexSignatures(ddocId: string, body: Record<string, unknown>): string[] {
  // The view manager hands plain bodies; the definitions are read as JSON values.
  return textIndexesOf(ddocId, fromPlain(body)).map((index) => textSearchDef(index).signature);
}
