import { hash } from 'node:crypto';
import { TermWriter } from '../json/term.js';
import type { JsonObject } from '../json/value.js';
import { revIdBytes, type Rev } from './rev.js';

/**
 * CouchDB's deterministic new rev id (couch_db:new_revid): the lower-case hex MD5 of
 * term_to_binary([Deleted, ParentPos, ParentRevId, Body, Atts], [{minor_version, 1}]).
 * For a new doc ParentPos is 0 and ParentRevId the integer 0; otherwise the parent id is its
 * stored bytes (16 raw bytes for 32 hex digits). `body` is the document without its special
 * `_` members. Atts is a list of `{Name, ContentType, Md5}` tuples (binaries; Md5 the 16 raw bytes
 * of the stored digest) in the reverse order of the document's attachments: couch_db:new_revid
 * builds it with a foldl that prepends. `omit`: a member of `body` not hashed (an access-enabled
 * database's `_access`, which lives beside the body in CouchDB's branch).
 */
export function newRevId(
  deleted: boolean,
  parent: Rev | null,
  body: JsonObject,
  atts: readonly HashedAttachment[] = [],
  omit?: string,
): string {
  // One writer for every call: writes are synchronous and the bytes are hashed before returning.
  const term = writer
    .reset()
    .byte(131)
    .list(5)
    .atom(deleted ? 'true' : 'false');
  if (parent === null) term.integer(0).integer(0);
  else term.integer(parent.pos).binary(revIdBytes(parent.id));
  term.value(body, omit);
  if (atts.length > 0) {
    term.list(atts.length);
    for (let i = atts.length - 1; i >= 0; i--) {
      const att = atts[i]!;
      term.tuple(3).binary(att.name).binary(att.contentType).binary(att.md5);
    }
  }
  term.nil().nil(); // Atts (or its tail), then the outer list's tail
  // The one-shot hash costs half of createHash().update().digest() per call.
  return hash('md5', term.finish());
}

const writer = new TermWriter();

/** What a rev id hashes of one attachment. */
export interface HashedAttachment {
  name: string;
  contentType: string;
  /** The 16 bytes of the MD5 of the stored bytes. */
  md5: Uint8Array;
}
