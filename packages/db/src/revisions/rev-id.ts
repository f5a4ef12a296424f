import { hash } from 'node:crypto';
import { TermWriter } from '../json/term.js';
import type { JsonObject } from '../json/value.js';
import { revIdBytes, type Rev } from './rev.js';

/**
 * CouchDB's deterministic new rev id (couch_db:new_revid): the lower-case hex MD5 of
 * term_to_binary([Deleted, ParentPos, ParentRevId, Body, Atts], [{minor_version, 1}]).
 * For a new doc ParentPos is 0 and ParentRevId the integer 0; otherwise the parent id is its
 * stored bytes (16 raw bytes for 32 hex digits). `body` is the document without its special
 * `_` members. Attachments are not supported yet, so Atts is always [].
 */
export function newRevId(deleted: boolean, parent: Rev | null, body: JsonObject): string {
  // One writer for every call: writes are synchronous and the bytes are hashed before returning.
  const term = writer
    .reset()
    .byte(131)
    .list(5)
    .atom(deleted ? 'true' : 'false');
  if (parent === null) term.integer(0).integer(0);
  else term.integer(parent.pos).binary(revIdBytes(parent.id));
  term.value(body).nil().nil(); // Atts = [], then the list's tail
  // The one-shot hash costs half of createHash().update().digest() per call.
  return hash('md5', term.finish());
}

const writer = new TermWriter();
