/**
 * The map step of a search index: each document through the index function in the sandbox
 * (CouchDB's dreyfus.js `index(name, value, options)`, with its checks), or on this thread when
 * the function is of a common shape (../views/native-map/map-shape.ts's, with `index` calls), then its fields
 * through the analyzers here, into the rows of ./search-rows.ts (one per document, its postings
 * in it, and its numbers). What each call of `index`
 * makes is what Clouseau makes of it:
 *
 * - a string: analyzed text (`index: "not_analyzed"` one term as is; `index: false` or `"no"`
 *   not searchable), its length norm times `boost`;
 * - a number: a numeric field (numeric term queries and ranges), not text;
 * - a boolean: the one term `true` or `false`;
 * - `store: true` (or `"yes"`): the value comes back in a hit's `fields`;
 * - `facet: true`: a string counts in `counts` and narrows with `drilldown`, a number counts
 *   in `ranges`.
 *
 * Positions continue from one value of a field to the next in the same document (Lucene's
 * position increment gap of 0).
 */
import { compareUtf8 } from '../collation/index.js';
import { CouchError } from '../errors.js';
import { createMapper, type MapBatchResult, type Mapper, type Row } from '../sandbox/index.js';
import type { ViewGroup } from '../views/design.js';
import { compileShape } from '../views/native-map/map-shape.js';
import { nativeJsMapper, type StoredDoc, type StoredDocMapper } from '../views/native-map/native-js-mapper.js';
import type { BuildableRowTree } from '../views/index/view-index.js';
import type { NativeMapper } from '../views/view-manager.js';
import { type FieldAnalyzers, fieldAnalyzers } from './analyzers.js';
import { DOCS, defOfGroup, SEARCH_LANGUAGE } from './search-design.js';
import { MappedValues } from './mapped-values.js';
import { SearchDocsTree } from './search-docs-tree.js';
import { FieldTerms, TermGrouper } from './field-terms.js';
import { encodeGroupedPostings } from './postings-codec.js';
import { TermDictionary } from './term-dictionary.js';
import { type DocValue, normByte } from './search-rows.js';

/** The server's native mapper for a search group (undefined for any other group). */
export function searchMapper(group: ViewGroup): NativeMapper | undefined {
  if (group.language !== SEARCH_LANGUAGE) return undefined;
  return new SearchMapper(group);
}

/**
 * The index function as a map function: `index` is a local of the closure the function is
 * compiled in (a direct `eval`), and each call is emitted as a row `[name, [value, options]]`.
 */
export function indexFunctionAsMap(source: string): string {
  return `(function () {
  var index = function (name, value, options) {
    if (typeof name !== 'string') throw { name: 'TypeError', message: 'name must be a string not ' + typeof name };
    if (name.substring(0, 1) === '_') throw { name: 'ReservedName', message: 'name must not start with an underscore' };
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      throw { name: 'TypeError', message: 'value must be a string, a number or boolean not ' + typeof value };
    if (options && typeof options !== 'object') throw { name: 'TypeError', message: 'options must be an object not ' + typeof options };
    emit(name, [value, options || {}]);
  };
  var fn = eval('(' + ${JSON.stringify(source.trim().replace(/;+$/, ''))} + '\\n)');
  if (typeof fn !== 'function') throw 'Expression does not eval to a function.';
  return function (doc) { fn(doc); };
})()`;
}

class SearchMapper implements NativeMapper {
  readonly viewNames = ['numbers', 'docs'];
  private inner: Promise<Mapper> | undefined;
  private readonly analyzers: FieldAnalyzers;
  private readonly dictionary = new TermDictionary();
  private readonly grouper = new TermGrouper();
  /** A document's fields so far, in the order first indexed, and their terms (both reused from one document to the next). */
  private readonly fieldNames: string[] = [];
  private readonly fieldTerms: FieldTerms[] = [];
  /** The values mapped, for the in-memory postings to take rather than parse their rows (./mapped-values.ts). */
  private readonly mapped = new MappedValues();
  /** Whether the document being mapped has no number JSON would change (NaN, ±Infinity, -0). */
  private exact = true;

  constructor(private readonly group: ViewGroup) {
    const def = defOfGroup(group);
    // An unknown analyzer fails the update (a 400 to the query that asked for it).
    this.analyzers = fieldAnalyzers(def.analyzer);
  }

  async mapBatch(docsJson: readonly string[]): Promise<MapBatchResult> {
    const mapped = await (await this.started()).mapBatch(docsJson);
    return { rows: mapped.rows.map((views) => this.rowsOf(views[0] ?? [])), errors: mapped.errors };
  }

  /** As mapBatch, from the documents as stored (not rendered where the function reads body members only). */
  async mapStored(docs: readonly StoredDoc[], render: (doc: StoredDoc) => string): Promise<MapBatchResult> {
    const inner = await this.started();
    const mapped =
      'mapStored' in inner
        ? await (inner as StoredDocMapper).mapStored(docs, render)
        : await inner.mapBatch(docs.map(render));
    const rows = mapped.rows.map((views, d) => {
      this.exact = true;
      const rows = this.rowsOf(views[0] ?? []);
      const value = rows[1]![0]![1] as DocValue;
      this.mapped.noted(docs[d]!.id, this.exact ? value : undefined);
      return rows;
    });
    return { rows, errors: mapped.errors };
  }

  private started(): Promise<Mapper> {
    const def = defOfGroup(this.group);
    this.inner ??= this.start(def.name, def.source).catch((error: unknown) => {
      this.inner = undefined;
      if (error instanceof CouchError && error.error === 'compilation_error') {
        throw new CouchError(
          'compilation_error',
          `Compilation of the index function of '${def.name}' failed: ${error.reason}`,
          400,
        );
      }
      throw error;
    });
    return this.inner;
  }

  /**
   * An index function of the views' common shape (../views/native-map) runs on this thread, the
   * documents it would throw on in the sandbox; any other in the sandbox. The sandbox's boundary
   * (each document's text copied in and parsed there, its rows' text back) was most of the
   * mapping's cost in a 1% update.
   */
  private async start(name: string, source: string): Promise<Mapper> {
    const design = { views: [{ name, map: indexFunctionAsMap(source) }] };
    return nativeJsMapper(design, {}, () => compileShape(source, 'index')) ?? createMapper(design);
  }

  /** One document's index calls → its rows in the two trees. */
  private rowsOf(calls: Row[]): Row[][] {
    const numbers: Row[] = [];
    const doc: DocValue = { s: {}, n: {}, t: {} };
    const dictionary = this.dictionary;
    dictionary.trimmed();
    // Per field: its terms so far (ids and positions, positions continue), its boost; found by
    // a scan while the fields are few (a Map and its iteration per document were garbage).
    const { fieldNames, fieldTerms } = this;
    let fieldCount = 0;
    let byName: Map<string, FieldTerms> | undefined;
    for (const [name, args] of calls) {
      const field = name as string;
      const [value, rawOptions] = args as [unknown, unknown];
      const options = (typeof rawOptions === 'object' && rawOptions !== null ? rawOptions : {}) as Record<
        string,
        unknown
      >;
      if (isStored(options.store)) addStored(doc.s, field, typeof value === 'boolean' ? String(value) : value);
      if (options.facet === true) addFacet(doc, field, value);
      if (typeof value === 'number') {
        if (!Number.isFinite(value) || Object.is(value, -0)) this.exact = false;
        numbers.push([[field, value], null]);
        if (doc.n[field] === undefined || value > doc.n[field]) doc.n[field] = value;
        continue;
      }
      const mode = typeof value === 'boolean' ? 'not_analyzed' : indexMode(options.index);
      if (mode === 'no') continue;
      const text = String(value);
      let state: FieldTerms | undefined;
      if (byName !== undefined) state = byName.get(field);
      else {
        for (let f = 0; f < fieldCount; f++) {
          if (fieldNames[f] === field) {
            state = fieldTerms[f];
            break;
          }
        }
      }
      if (state === undefined) {
        // The fields' arrays are reused from one document to the next.
        state = fieldTerms[fieldCount] ??= new FieldTerms();
        state.reset();
        fieldNames[fieldCount++] = field;
        if (byName !== undefined) byName.set(field, state);
        else if (fieldCount > MAX_SCANNED_FIELDS) {
          byName = new Map();
          for (let f = 0; f < fieldCount; f++) byName.set(fieldNames[f]!, fieldTerms[f]!);
        }
      }
      // Nouveau's `string` (./nouveau-design.ts): Lucene 9's StringField, documents only (a term
      // once per document) and no norms; a field also given otherwise is not one.
      const keyword = options.nouveau === 'string';
      state.keyword &&= keyword;
      if (typeof options.boost === 'number') state.boost *= options.boost;
      // This value's positions start where the field's last value ended.
      state.base = state.next;
      if (mode === 'not_analyzed') {
        const id = dictionary.idOf(text);
        if (!keyword || !state.has(id)) state.add(id, 0);
        continue;
      }
      const analyzer = this.analyzers.forField(field);
      if (!keyword && analyzer.interning?.(text, dictionary, state)) continue;
      for (const token of analyzer(text)) {
        const id = dictionary.idOf(token.text);
        if (!keyword || !state.has(id)) state.add(id, token.position);
      }
    }
    for (let f = 0; f < fieldCount; f++) {
      const field = fieldNames[f]!;
      const state = fieldTerms[f]!;
      // DefaultSimilarity.lengthNorm: boost / sqrt(number of terms), kept in Lucene's one byte.
      const norm = normByte(state.count === 0 ? 0 : state.boost / Math.sqrt(state.count));
      const grouped = this.grouper.group(state, dictionary);
      (doc.p ??= {})[field] = encodeGroupedPostings(
        norm,
        grouped.terms,
        grouped.count,
        grouped.frequencies,
        grouped.positions,
      );
      // The field's largest term (a string sort's value).
      if (grouped.largest !== undefined) doc.t[field] = grouped.largest;
      if (state.keyword) (doc.k ??= []).push(field);
    }
    return [numbers, [[null, doc]]];
  }

  /** The documents' tree keeps the postings in memory in step with its rows (./search-docs-tree.ts). */
  wrapTree(tree: BuildableRowTree, view: number): BuildableRowTree {
    return view === DOCS ? new SearchDocsTree(tree, this.mapped) : tree;
  }

  dispose(): void {
    void this.inner?.then((mapper) => mapper.dispose()).catch(() => {});
  }
}

/** A document's fields are looked up by a scan up to this many, then in a Map. */
const MAX_SCANNED_FIELDS = 8;

function isStored(store: unknown): boolean {
  return store === true || (typeof store === 'string' && store.toLowerCase() === 'yes');
}

/** Clouseau's `index` option: analyzed by default; `false`/`"no"` not indexed; `"not_analyzed"` one term. */
function indexMode(index: unknown): 'analyzed' | 'not_analyzed' | 'no' {
  if (index === false) return 'no';
  if (typeof index !== 'string') return 'analyzed';
  const upper = index.toUpperCase();
  if (upper === 'NO') return 'no';
  if (upper === 'NOT_ANALYZED' || upper === 'NOT_ANALYZED_NO_NORMS') return 'not_analyzed';
  return 'analyzed';
}

/** Clouseau's facets: a non-empty string for counts and drilldown, a number for ranges. */
function addFacet(doc: DocValue, field: string, value: unknown): void {
  if (typeof value === 'number') {
    doc.fn ??= {};
    (doc.fn[field] ??= []).push(value);
  } else if (typeof value === 'string' && value !== '') {
    doc.f ??= {};
    (doc.f[field] ??= []).push(value);
  }
}

function addStored(stored: Record<string, unknown>, field: string, value: unknown): void {
  if (!(field in stored)) stored[field] = value;
  else if (Array.isArray(stored[field])) (stored[field] as unknown[]).push(value);
  else stored[field] = [stored[field], value];
}

/** Lucene's term order: UTF-8 bytes (also the order of document ids in the index's rows). */
export const compareTerms = compareUtf8;
