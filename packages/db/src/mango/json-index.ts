/**
 * Mango JSON indexes as CouchDB stores them: views of a `"language": "query"` design document,
 * each view's `map` an object `{"fields": {"n": "asc", ...}, "partial_filter_selector": {...}}`,
 * `reduce: "_count"`, and `options.def` the `index` object of the request that created it.
 *
 * They are built by the view engine like any view; what a JavaScript map function does there is
 * done here natively (`jsonIndexMapper`): a live, non-design document is in the index when every
 * field resolves (any value, null included) and the partial filter selector matches; its one
 * row's key is the array of the field values.
 */
import { parseJson, type JsonValue, JsonObject, toPlain } from '../json/index.js';
import { memberValuesInto, membersReader } from './flat-members.js';
import type { MapBatchResult, Row } from '../sandbox/index.js';
import type { EmittedRows } from '../views/native-map/map-shape.js';
import type { StoredDoc, StoredDocMapper } from '../views/native-map/native-js-mapper.js';
import type { ViewGroup } from '../views/design.js';
import { BAD_PATH, type FieldPath, NOT_FOUND, parseFieldPath, resolvePath } from './field-path.js';
import { parseSelector } from './selector.js';
import { topLevelNames } from './selector-parser.js';

export interface IndexField {
  /** The field name as written (dots escaped). */
  name: string;
  path: FieldPath;
  dir: 'asc' | 'desc';
}

export interface JsonIndex {
  /** `_design/...` */
  ddoc: string;
  name: string;
  fields: IndexField[];
  /** The normalized partial filter selector, when it is not empty. */
  partialFilter?: JsonObject;
  /** The view's position in its design document's view group. */
  view: number;
  /**
   * Its design document's `options.partitioned`, by default the database's: a partitioned index
   * serves queries of one partition, a global one the others (CouchDB's filter_partition_indexes).
   */
  partitioned: boolean;
}

/** The JSON indexes of a design document's body (none unless its language is "query"). */
export function jsonIndexesOf(ddocId: string, body: JsonValue, dbPartitioned = false): JsonIndex[] {
  if (!(body instanceof JsonObject) || body.get('language') !== 'query') return [];
  const options = body.get('options');
  const partitioned = dbPartitioned && !(options instanceof JsonObject && options.get('partitioned') === false);
  const views = body.get('views');
  if (!(views instanceof JsonObject)) return [];
  const out: JsonIndex[] = [];
  let position = 0;
  for (let i = 0; i < views.keys.length; i++) {
    const name = views.keys[i]!;
    const view = views.values[i]!;
    // The view group counts the views it can read (./views/design.ts): the same ones, in order.
    if (name === 'lib' || !(view instanceof JsonObject) || !isQueryMap(view.get('map'))) continue;
    const index = indexOfMap(ddocId, name, view.get('map') as JsonObject, position++, partitioned);
    if (index !== undefined) out.push(index);
  }
  return out;
}

/** Whether a view's `map` is a Mango index definition (an object with `fields`). */
export function isQueryMap(map: JsonValue | undefined): boolean {
  return map instanceof JsonObject && map.get('fields') instanceof JsonObject;
}

function indexOfMap(
  ddoc: string,
  name: string,
  map: JsonObject,
  view: number,
  partitioned: boolean,
): JsonIndex | undefined {
  const fields: IndexField[] = [];
  const spec = map.get('fields') as JsonObject;
  for (let i = 0; i < spec.keys.length; i++) {
    const field = spec.keys[i]!;
    let path: FieldPath;
    try {
      path = parseFieldPath(field);
    } catch {
      // CouchDB accepts any field name in a definition; one that is no path indexes nothing.
      return undefined;
    }
    fields.push({ name: field, path, dir: spec.values[i] === 'desc' ? 'desc' : 'asc' });
  }
  const partial = map.get('partial_filter_selector');
  return {
    ddoc,
    name,
    fields,
    view,
    partitioned,
    ...(partial instanceof JsonObject && partial.size > 0 ? { partialFilter: partial } : {}),
  };
}

/** The view a design document holds for an index (see the header). */
export function indexView(
  fields: readonly Pick<IndexField, 'name' | 'dir'>[],
  partialFilter: JsonObject | undefined,
  def: JsonValue,
): JsonObject {
  const map = JsonObject.from([
    ['fields', JsonObject.from(fields.map((f) => [f.name, f.dir]))],
    ['partial_filter_selector', partialFilter ?? new JsonObject()],
  ]);
  return JsonObject.from([
    ['map', map],
    ['reduce', '_count'],
    ['options', JsonObject.from([['def', def]])],
  ]);
}

/** How `GET /{db}/_index` lists an index. */
export function describeIndex(index: JsonIndex): JsonObject {
  const def = JsonObject.from([['fields', index.fields.map((f) => JsonObject.from([[f.name, f.dir]]))]]);
  if (index.partialFilter !== undefined) def.set('partial_filter_selector', index.partialFilter);
  return JsonObject.from([
    ['ddoc', index.ddoc],
    ['name', index.name],
    ['type', 'json'],
    ['partitioned', index.partitioned],
    ['def', def],
  ]);
}

/** `_all_docs` as Mango lists it. */
export const ALL_DOCS_INDEX = (): JsonObject =>
  JsonObject.from([
    ['ddoc', null],
    ['name', '_all_docs'],
    ['type', 'special'],
    ['def', JsonObject.from([['fields', [JsonObject.from([['_id', 'asc']])]]])],
  ]);

/** Compiles a normalized selector into a document test (the Mango matcher). */
export type FilterCompiler = (selector: JsonObject) => (doc: JsonValue) => boolean;

/**
 * The view engine's mapper for a `"language": "query"` view group: the rows of each document
 * computed here, without a sandbox. Where the indexes read only body members (no `_id`, no
 * meta member), each document is read from its stored body as the updater has it, not from its
 * rendered text (issue #31: rendering every document of a build was a copy of each to read one
 * or two members out of it). A build from empty maps one document at a time (`mapInto`, the
 * view engine's one-at-a-time build): each index's key array and row are then made once for the
 * whole build and refilled, as the build keeps nothing of a document's rows.
 */
export function jsonIndexMapper(group: ViewGroup, compileFilter: FilterCompiler): StoredDocMapper {
  const defined = group.views.map((view) => {
    const map = parseJson(view.map);
    return map instanceof JsonObject ? indexOfMap(group.ddocId, view.name, map, 0, group.partitioned) : undefined;
  });
  const indexes = defined.map((index) => ({
    fields: index?.fields,
    filter: index?.partialFilter === undefined ? undefined : compileFilter(index.partialFilter),
  }));
  const { parse, bodyOnly } = membersParser(defined);
  const rowsInto = keysReader(indexes) ?? docRows(parse, indexes);
  // The rows `mapInto` refills: one key array and one row per index, for every document.
  const reused = indexes.map(({ fields }): Row | undefined =>
    fields === undefined ? undefined : [new Array<unknown>(fields.length), null],
  );
  const rowsOf = (text: string): Row[][] => {
    const perView: Row[][] = indexes.map(() => []);
    rowsInto(text, perView, undefined);
    return perView;
  };
  return {
    viewNames: group.views.map((view) => view.name),
    async mapBatch(docsJson: readonly string[]): Promise<MapBatchResult> {
      return { rows: docsJson.map((text) => rowsOf(text)), errors: [] };
    },
    async mapStored(docs: readonly StoredDoc[], render: (doc: StoredDoc) => string): Promise<MapBatchResult> {
      return { rows: docs.map((doc) => rowsOf(bodyOnly ? doc.body : render(doc))), errors: [] };
    },
    mapInto(doc: StoredDoc, render: (doc: StoredDoc) => string, perView: EmittedRows[]): boolean {
      try {
        rowsInto(bodyOnly ? doc.body : render(doc), perView, reused);
        return true;
      } catch {
        // As the view engine's native mapper: the document goes to `mapStored` (which reports it).
        return false;
      }
    },
    dispose() {},
  };
}

interface MappedIndex {
  fields: IndexField[] | undefined;
  filter: ((doc: JsonValue) => boolean) | undefined;
}

/**
 * Puts each index's row of a document's text into `perView` (emptied first): its key where every
 * field resolves and the filter holds. `reused`: each index's row to refill (its key array
 * overwritten), or undefined for new ones.
 */
type RowsInto = (text: string, perView: Row[][], reused: readonly (Row | undefined)[] | undefined) => void;

/** The row of index `v` with `key`'s slots to fill: the reused one, or a new one. */
function rowFor(reused: readonly (Row | undefined)[] | undefined, v: number, length: number): Row {
  return reused?.[v] ?? [new Array<unknown>(length), null];
}

/** Each index's rows of a document's text: its key where every field resolves and the filter holds. */
function docRows(parse: (text: string) => JsonValue, indexes: readonly MappedIndex[]): RowsInto {
  return (text, perView, reused) => {
    const doc = parse(text);
    for (let v = 0; v < indexes.length; v++) {
      const out = perView[v]!;
      out.length = 0;
      const { fields, filter } = indexes[v]!;
      if (fields === undefined) continue;
      const row = rowFor(reused, v, fields.length);
      const key = row[0] as unknown[];
      let found = true;
      for (let f = 0; f < fields.length; f++) {
        const value = resolvePath(doc, fields[f]!.path);
        if (value === NOT_FOUND || value === BAD_PATH) {
          found = false;
          break;
        }
        key[f] = toPlain(value);
      }
      if (!found || (filter !== undefined && !filter(doc))) continue;
      out.push(row);
    }
  };
}

/**
 * `docRows` where every index reads top-level members alone and has no filter (the common index):
 * the keys made straight from the members' values, no document built around them.
 */
function keysReader(indexes: readonly MappedIndex[]): RowsInto | undefined {
  if (indexes.some(({ fields, filter }) => filter !== undefined || fields?.some((f) => f.path.length !== 1))) {
    return undefined;
  }
  const names = [...new Set(indexes.flatMap(({ fields }) => (fields ?? []).map((f) => f.path[0]!)))];
  const slots = indexes.map(({ fields }) => fields?.map((f) => names.indexOf(f.path[0]!)));
  const read = memberValuesInto(names);
  // The members' values of the document being mapped: one array, refilled for each.
  const values: (JsonValue | undefined)[] = new Array(names.length);
  return (text, perView, reused) => {
    read(text, values);
    for (let v = 0; v < slots.length; v++) {
      const out = perView[v]!;
      out.length = 0;
      const columns = slots[v];
      if (columns === undefined) continue;
      let found = true;
      for (let c = 0; c < columns.length; c++) {
        if (values[columns[c]!] === undefined) {
          found = false;
          break;
        }
      }
      if (!found) continue;
      const row = rowFor(reused, v, columns.length);
      const key = row[0] as unknown[];
      for (let c = 0; c < columns.length; c++) key[c] = toPlain(values[columns[c]!]!);
      out.push(row);
    }
  };
}

/**
 * A parser of the documents a view group maps: only the top-level members its indexes' fields and
 * partial filters read (an index build spent most of its time parsing whole documents and
 * collecting them); the whole document when a filter tests more than named members. `bodyOnly`:
 * every member read is in a stored body (none starts with `_`: the stored body has no `_id` or
 * `_rev`, and its attachment stubs and meta members are not the document's view of them).
 */
function membersParser(indexes: readonly (JsonIndex | undefined)[]): {
  parse: (text: string) => JsonValue;
  bodyOnly: boolean;
} {
  const names = new Set<string>();
  for (const index of indexes) {
    if (index === undefined) continue;
    for (const field of index.fields) names.add(field.path[0]!);
    if (index.partialFilter === undefined) continue;
    let named: boolean;
    try {
      named = topLevelNames(parseSelector(index.partialFilter), names);
    } catch {
      // A filter that does not parse is the filter compiler's to report.
      named = false;
    }
    if (!named) return { parse: parseJson, bodyOnly: false };
  }
  return { parse: membersReader(names), bodyOnly: [...names].every((name) => !name.startsWith('_')) };
}
