/** A design document as its JavaScript functions see it (`this`), and the functions it holds. */
import type { Database } from '../documents/database.js';
import { CouchError, notFound } from '../errors.js';
import { JsonObject, stringifyJson } from '../json/index.js';
import { refuseUnsupportedLanguage } from '../sandbox/query-language.js';

export interface DesignDoc {
  id: string;
  rev: string;
  body: JsonObject;
  /** The body as JSON text, `_id` and `_rev` first. */
  json: string;
}

/** The design document's winning revision, or 404 `missing`/`deleted`. */
export async function openDesignDoc(db: Database, ddocId: string): Promise<DesignDoc> {
  const found = await db.winningBody(ddocId);
  if (found === undefined) throw notFound((await db.record(ddocId))?.deleted ? 'deleted' : 'missing');
  const stored = found.body as JsonObject;
  const body = new JsonObject(['_id', '_rev', ...stored.keys], [ddocId, found.rev, ...stored.values]);
  return { id: ddocId, rev: found.rev, body, json: stringifyJson(body) };
}

/**
 * `section.name` of the design document (couch_util:get_nested_json_value): 404
 * `missing json key: …` naming the first member that is not there.
 */
export function requireFunction(ddoc: DesignDoc, section: string, name: string): void {
  refuseLanguageOf(ddoc.body);
  const holder = ddoc.body.get(section);
  if (holder === undefined) throw notFound(`missing json key: ${section}`);
  if (!(holder instanceof JsonObject)) throw notFound('json_mismatch');
  if (holder.get(name) === undefined) throw notFound(`missing json key: ${name}`);
}

/** `updates.name`, as couchjs looks it up: 404 naming the function and the design document. */
export function requireUpdateFunction(ddoc: DesignDoc, name: string): void {
  refuseLanguageOf(ddoc.body);
  const holder = ddoc.body.get('updates');
  if (!(holder instanceof JsonObject) || holder.get(name) === undefined) {
    throw new CouchError('not_found', `missing updates function ${name} on design doc ${ddoc.id}`);
  }
}

/** A design document in Erlang or CoffeeScript: its functions are refused with a 400 naming the language. */
export function refuseLanguageOf(body: JsonObject): void {
  const language = body.get('language');
  if (typeof language === 'string') refuseUnsupportedLanguage(language);
}
