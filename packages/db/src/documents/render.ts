/**
 * Documents leave as text: the stored body (canonical JSON) spliced after `_id` and `_rev`, with
 * the special members CouchDB adds in its order (couch_doc:to_json_obj): body, `_deleted`,
 * `_revisions`, then the meta members (`_revs_info`, `_conflicts`, `_deleted_conflicts`,
 * `_local_seq`). No parse and re-serialize of the body on the read path.
 */
export function renderDoc(
  id: string,
  rev: string,
  body: string,
  deleted: boolean,
  extras?: ReadonlyArray<readonly [string, unknown]>,
): string {
  let out = `{"_id":${JSON.stringify(id)},"_rev":${JSON.stringify(rev)}`;
  if (body.length > 2) out += `,${body.slice(1, -1)}`;
  if (deleted) out += ',"_deleted":true';
  if (extras !== undefined) {
    for (const [key, value] of extras) out += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return `${out}}`;
}
