/**
 * Documents leave as text: the stored body (canonical JSON) spliced after `_id` and `_rev`, with
 * the special members CouchDB adds in its order (couch_doc:to_json_obj): body, `_deleted`,
 * `_revisions`, then the meta members (`_revs_info`, `_conflicts`, `_deleted_conflicts`,
 * `_local_seq`), then `_attachments`. No parse and re-serialize of the body on the read path:
 * a stored body's attachment stubs (./attachment.ts) are moved to the end as text.
 */
import { splitStoredBody } from './attachment.js';

export function renderDoc(
  id: string,
  rev: string,
  stored: string,
  deleted: boolean,
  extras?: ReadonlyArray<readonly [string, unknown]>,
  /** The `_attachments` text to write instead of the stored stubs (inline data, follows, encoding info). */
  attachments?: string,
): string {
  const { stubs, body } = splitStoredBody(stored);
  let out = `{"_id":${JSON.stringify(id)},"_rev":${JSON.stringify(rev)}`;
  if (body.length > 2) out += `,${body.slice(1, -1)}`;
  if (deleted) out += ',"_deleted":true';
  if (extras !== undefined) {
    for (const [key, value] of extras) out += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  const atts = attachments ?? stubs;
  if (atts !== undefined) out += `,"_attachments":${atts}`;
  return `${out}}`;
}
