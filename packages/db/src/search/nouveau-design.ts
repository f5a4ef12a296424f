/**
 * A design document's Nouveau indexes (`nouveau.{name}`: `index`, the JavaScript function that
 * calls `index(type, name, value, options)`, `default_analyzer` and `field_analyzers`), each kept
 * as a search index (./search-design.ts): the same view-engine trees, updater and queries. What
 * differs is said here once:
 *
 * - the index function's typed `index` is turned into Clouseau's `index(name, value, options)`
 *   (the calls the search mapper knows): `text` is analyzed text, `string` one term as written
 *   (Lucene 9's KeywordField: sortable, counted by `counts`), `double` a number (sortable,
 *   counted by `ranges`), `stored` only returned in a hit's `fields`; the value checks are
 *   CouchDB's nouveau.js ones (a wrong type throws, and the document is indexed without fields);
 * - the analyzers are Lucene 9's: `standard` has no stop words there (Lucene 4's had English's);
 * - the signature is its own (a Nouveau index never shares a `_search` index's state).
 */
import { createHash } from 'node:crypto';
import { CouchError } from '../errors.js';
import type { SearchIndexDef } from './search-design.js';

/** The index function with Nouveau's typed `index` over the search mapper's Clouseau one. */
function typedIndexFunction(source: string): string {
  return `(function (clouseauIndex) {
  var check = function (what, expected, value) {
    if (typeof value !== expected)
      throw { name: 'TypeError', message: 'type of ' + what + ' must be a ' + expected + ' not ' + typeof value };
  };
  var index = function (type, name, value, options) {
    check('type', 'string', type);
    check('name', 'string', name);
    if (name.substring(0, 1) === '_') throw { name: 'ReservedName', message: 'name must not start with an underscore' };
    var store = !!(options && options.store);
    switch (type) {
      case 'text':
        check('value', 'string', value);
        return clouseauIndex(name, value, { store: store });
      case 'string':
        check('value', 'string', value);
        return clouseauIndex(name, value, { index: 'not_analyzed', store: store, facet: true, nouveau: 'string' });
      case 'double':
        check('value', 'number', value);
        return clouseauIndex(name, value, { store: store, facet: true });
      case 'stored':
        if (typeof value === 'string') return clouseauIndex(name, value, { index: false, store: true });
        if (typeof value === 'number') return clouseauIndex(name, value, { store: true });
        throw { name: 'TypeError', message: 'type of ' + value + ' must be a string or number' };
      default:
        throw { name: 'TypeError', message: type + ' not supported' };
    }
  };
  var fn = eval('(' + ${JSON.stringify(source.trim().replace(/;+$/, ''))} + '\\n)');
  if (typeof fn !== 'function') throw 'Expression does not eval to a function.';
  return function (doc) { fn(doc); };
})(index)`;
}

/** A Lucene 9 analyzer name as the search analyzers take it (`standard` without stop words). */
function lucene9Analyzer(name: unknown, where: string): unknown {
  if (typeof name !== 'string') throw new CouchError('bad_request', `${where} must be a string`);
  return name === 'standard' ? { name: 'standard', stopwords: [] } : name;
}

/** `default_analyzer` and `field_analyzers` as one perfield analyzer. */
function analyzerOf(def: Record<string, unknown>): unknown {
  const fallback = lucene9Analyzer(def.default_analyzer ?? 'standard', 'default_analyzer');
  const given = def.field_analyzers ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new CouchError('bad_request', 'field_analyzers must be an object');
  }
  const fields: Record<string, unknown> = {};
  for (const [field, name] of Object.entries(given)) fields[field] = lucene9Analyzer(name, `field_analyzers.${field}`);
  return { name: 'perfield', default: fallback, fields };
}

/** The Nouveau indexes a design document defines (those with an `index` string). */
export function nouveauIndexesOf(ddocId: string, body: Record<string, unknown>): SearchIndexDef[] {
  const indexes = body.nouveau;
  if (typeof indexes !== 'object' || indexes === null || Array.isArray(indexes)) return [];
  const out: SearchIndexDef[] = [];
  for (const [name, def] of Object.entries(indexes as Record<string, unknown>)) {
    if (typeof def !== 'object' || def === null) continue;
    const object = def as Record<string, unknown>;
    if (typeof object.index !== 'string') continue;
    const written = {
      // 2: string fields indexed as Lucene 9's StringField, for BM25 (./bm25.ts).
      nouveau: 2,
      ddocId,
      index: object.index,
      default_analyzer: object.default_analyzer ?? null,
      field_analyzers: object.field_analyzers ?? null,
    };
    out.push({
      ddocId,
      name,
      source: typedIndexFunction(object.index),
      // An analyzer the server lacks is refused when the index is used, as `_search` does.
      analyzer: written,
      signature: createHash('md5').update(JSON.stringify(written)).digest('hex'),
    });
  }
  return out;
}

/** One index by name: 404 when the design document has none of that name (CouchDB's reasons). */
export function nouveauIndexOf(ddocId: string, body: Record<string, unknown>, name: string): SearchIndexDef {
  const def = nouveauIndexesOf(ddocId, body).find((d) => d.name === name);
  if (def === undefined) {
    const all = body.nouveau;
    if (typeof all !== 'object' || all === null || !Object.hasOwn(all, name)) {
      throw new CouchError('not_found', `${name} not found.`);
    }
    throw new CouchError('invalid_design_doc', `index \`${name}\` must have parameter \`index\``);
  }
  return { ...def, analyzer: analyzerOf(def.analyzer as Record<string, unknown>), similarity: 'bm25' };
}

/** The signatures of a design document's Nouveau indexes (in use while it is). */
export function nouveauSignatures(ddocId: string, body: Record<string, unknown>): string[] {
  return nouveauIndexesOf(ddocId, body).map((d) => d.signature);
}
