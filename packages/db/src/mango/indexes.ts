/**
 * A database's Mango indexes: `_all_docs` and every JSON index of its `"language": "query"`
 * design documents, and how `_index` creates, lists and deletes them (as CouchDB
 * 3.5 has them; the stored form in ./json-index.ts).
 */
import type { Database, Writer } from '../documents/database.js';
import { DESIGN_PREFIX } from '../documents/doc-id.js';
import { readDocInput } from '../documents/doc-input.js';
import { CouchError } from '../errors.js';
import { type JsonValue, JsonObject, stringifyJson } from '../json/index.js';
import { formatErlangTerm } from '../views/reduce/erlang-format.js';
import { DesignIndexes } from './design-indexes.js';
import { autoIndexName } from './index-name.js';
import { type IndexField, indexView, type JsonIndex, jsonIndexesOf, describeIndex } from './json-index.js';
import {
  describeTextIndex,
  TEXT_INDEX_MEMBER,
  type TextIndexType,
  textIndexAnalyzer,
  textIndexes,
  textIndexesOf,
} from './text-index.js';

/** An `_index` request, parsed (./index-request.ts). */
export interface IndexRequest {
  /** The request's `index` object, as sent: stored as the view's `options.def`, hashed into auto names. */
  def: JsonValue;
  /** Names are not checked (CouchDB accepts `a..b`): one that is no path indexes nothing. */
  fields: Pick<IndexField, 'name' | 'dir'>[];
  /** The normalized partial filter selector (undefined: none). */
  partialFilter?: JsonObject;
  name?: string;
  /** As given (with or without `_design/`). */
  ddoc?: string;
  type: string;
  /** A text index's definition as stored (./text-index.ts); undefined for a JSON index. */
  textDef?: JsonObject;
  w?: number;
  partitioned?: boolean;
}

/**
 * The indexes read from each design document revision (./design-indexes.ts), and the list as of a
 * database sequence (a query lists them every time; the list can only change with a write).
 */
const kept = new DesignIndexes(jsonIndexesOf);
const listed = new WeakMap<Database, { seq: number; indexes: JsonIndex[] }>();

/** Every JSON index of the database's live design documents, sorted by (ddoc id, name) bytewise. */
export async function jsonIndexes(db: Database): Promise<JsonIndex[]> {
  const seq = await db.updateSeq();
  const last = listed.get(db);
  if (last?.seq === seq) return last.indexes;
  // The views of one design document in name order (the documents come in id order).
  const out = (await kept.byDesignDoc(db)).flatMap((indexes) => [...indexes].sort((a, b) => byBytes(a.name, b.name)));
  listed.set(db, { seq, indexes: out });
  return out;
}

/**
 * Every index as `GET /{db}/_index` lists it after `_all_docs`: JSON and text indexes in
 * (design document, name) order, as CouchDB sorts its index records.
 */
export async function listedIndexes(db: Database): Promise<JsonObject[]> {
  const all = [
    ...(await jsonIndexes(db)).map((index) => ({ ddoc: index.ddoc, name: index.name, json: describeIndex(index) })),
    ...(await textIndexes(db)).map((index) => ({ ddoc: index.ddoc, name: index.name, json: describeTextIndex(index) })),
  ];
  all.sort((a, b) => byBytes(a.ddoc, b.ddoc) || byBytes(a.name, b.name));
  return all.map((index) => index.json);
}

function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The design document id of an index's `ddoc` as given: `x`, `_design/x`; `_local/x` → `_design/_local/x`. */
export function designIdOf(ddoc: string): string {
  return ddoc.startsWith(DESIGN_PREFIX) ? ddoc : DESIGN_PREFIX + ddoc;
}

/** `POST /{db}/_index`: `created` or `exists`, with the design document and index names. */
export async function createIndex(
  db: Database,
  request: IndexRequest,
  writer?: Writer,
): Promise<{ result: 'created' | 'exists'; id: string; name: string }> {
  const auto = request.ddoc === undefined || request.name === undefined ? autoIndexName(request.def, request) : '';
  const id = designIdOf(request.ddoc ?? auto);
  const name = request.name ?? auto;
  const { textDef } = request;
  // A JSON index is a view; a text index a member of `indexes`, stored as CouchDB stores it.
  const [member, entry] =
    textDef === undefined
      ? ['views', indexView(request.fields, request.partialFilter, request.def)]
      : [
          TEXT_INDEX_MEMBER[request.type === 'nouveau' ? 'nouveau' : 'text'],
          JsonObject.from([
            ['index', textDef],
            ['analyzer', textIndexAnalyzer(textDef)],
          ]),
        ];
  // Divan answers CouchDB's `error_saving_ddoc` (a 500 there) with a 400.
  if (request.partitioned === true && !db.partitioned) {
    throw new CouchError('invalid_partitioned', 'Partitioned indexes need a partitioned database.', 400);
  }
  // A concurrent writer of the same design document: read it again and retry.
  for (let attempt = 0; ; attempt++) {
    const current = await db.winningBody(id);
    let body: JsonObject;
    if (current === undefined) {
      body = JsonObject.from([
        ['_id', id],
        ['language', 'query'],
        [member, new JsonObject()],
      ]);
      // A new design document takes the request's `partitioned` (mango_idx:set_ddoc_partitioned).
      if (request.partitioned !== undefined)
        body.set('options', JsonObject.from([['partitioned', request.partitioned]]));
    } else {
      body = (current.body as JsonObject).without(new Set());
      const language = body.get('language');
      if (language !== 'query') {
        // Erlang's `~w` of what couch_util:get_value finds: `undefined` when there is none.
        const shown = language === undefined ? 'undefined' : formatErlangTerm(language);
        throw new CouchError('invalid_ddoc_lang', `Existing design doc has an invalid language: ${shown}`, 400);
      }
      body.set('_id', id).set('_rev', current.rev);
      // An existing one keeps its own, which the request must not contradict.
      const options = body.get('options');
      const stored = options instanceof JsonObject ? options.get('partitioned') : undefined;
      if (request.partitioned !== undefined && request.partitioned !== stored) {
        throw new CouchError(
          'invalid_partitioned_option',
          `Requested partitioned option does not match existing value on design document ${id}`,
          400,
        );
      }
    }
    let holder = body.get(member);
    if (!(holder instanceof JsonObject)) body.set(member, (holder = new JsonObject()));
    const before = holder.get(name);
    if (textDef === undefined) {
      const def = before instanceof JsonObject ? before.get('options') : undefined;
      if (def instanceof JsonObject && sameJson(def.get('def'), request.def)) return { result: 'exists', id, name };
    } else if (before instanceof JsonObject && sameJson(before.get('index'), textDef)) {
      return { result: 'exists', id, name };
    }
    holder.set(name, entry);
    try {
      await db.putDoc(id, readDocInput(body), true, undefined, writer);
      return { result: 'created', id, name };
    } catch (error) {
      if (!(error instanceof CouchError) || error.error !== 'conflict' || attempt >= 4) throw error;
    }
  }
}

function sameJson(a: JsonValue | undefined, b: JsonValue): boolean {
  return a !== undefined && stringifyJson(a) === stringifyJson(b);
}

/**
 * `DELETE /{db}/_index/{ddoc}/{type}/{name}`: the index's view goes; its design document too
 * when it was the last. 404 `missing` for an unknown design document, type or name.
 */
export async function deleteIndex(
  db: Database,
  ddoc: string,
  type: string,
  name: string,
  writer?: Writer,
): Promise<void> {
  const id = designIdOf(ddoc);
  for (let attempt = 0; ; attempt++) {
    const current = await db.winningBody(id);
    const found =
      current === undefined
        ? false
        : type === 'json'
          ? jsonIndexesOf(id, current.body).some((i) => i.name === name)
          : textIndexesOf(id, current.body).some((i) => i.type === type && i.name === name);
    if (current === undefined || !found) throw new CouchError('not_found', 'missing');
    const body = (current.body as JsonObject).without(new Set());
    (body.get(type === 'json' ? 'views' : TEXT_INDEX_MEMBER[type as TextIndexType]) as JsonObject).delete(name);
    body.set('_id', id).set('_rev', current.rev);
    // The design document goes with its last index of either kind.
    const empty = (member: string) => {
      const holder = body.get(member);
      return !(holder instanceof JsonObject) || holder.size === 0;
    };
    if (empty('views') && empty('indexes') && empty('nouveau')) body.set('_deleted', true);
    try {
      await db.putDoc(id, readDocInput(body), true, undefined, writer);
      return;
    } catch (error) {
      if (!(error instanceof CouchError) || error.error !== 'conflict' || attempt >= 4) throw error;
    }
  }
}

/**
 * `POST /{db}/_index/_bulk_delete`: each design document goes with all its indexes; the lists
 * in reverse order of processing, as CouchDB gives them.
 */
export async function bulkDeleteIndexes(
  db: Database,
  ids: readonly string[],
  writer?: Writer,
): Promise<{ success: { id: string; ok: true }[]; fail: { id: string; error: string }[] }> {
  const success: { id: string; ok: true }[] = [];
  const fail: { id: string; error: string }[] = [];
  for (const given of ids) {
    const id = designIdOf(given);
    const current = await db.winningBody(id);
    if (
      current === undefined ||
      (jsonIndexesOf(id, current.body).length === 0 && textIndexesOf(id, current.body).length === 0)
    ) {
      fail.unshift({ id, error: 'not_found' });
      continue;
    }
    try {
      await db.putDoc(
        id,
        readDocInput(
          JsonObject.from([
            ['_id', id],
            ['_rev', current.rev],
            ['_deleted', true],
          ]),
        ),
        true,
        undefined,
        writer,
      );
      success.unshift({ id, ok: true });
    } catch (error) {
      fail.unshift({ id, error: error instanceof CouchError ? error.error : 'unknown_error' });
    }
  }
  return { success, fail };
}
