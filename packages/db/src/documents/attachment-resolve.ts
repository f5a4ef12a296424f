/**
 * A write's attachments made concrete before it is planned: stubs found in the revision they
 * keep attachments of, new bytes stored (compressed where CouchDB compresses). Runs outside the
 * storage transaction (storing bytes is slow and asynchronous); the plan only writes the
 * references. Everything a client can get wrong is checked before any byte is stored.
 */
import { CouchError } from '../errors.js';
import { findRev, normalizeRevId, parseTree, winner, type Rev } from '../revisions/index.js';
import type { AttachmentSource } from '../storage/records.js';
import type { DocumentStore } from '../storage/contract.js';
import { attachmentsOf, type Attachment } from './attachment.js';
import { storeAttachmentBytes } from './attachment-bytes.js';
import type { AttachmentInput } from './attachment-input.js';
import type { DocInput } from './doc-input.js';

/** An attachment of a revision about to be written: `revpos` undefined takes the new revision's generation. */
export type NewAttachment = Omit<Attachment, 'revpos'> & { revpos: number | undefined };

/** The bytes of `follows` attachments, by name (a multipart request's parts). */
export type FollowingParts = (name: string) => AttachmentSource;

export interface ResolveOptions {
  newEdits: boolean;
  maxAttachmentBytes: number;
  /** `[attachments] compression_level` (default 8). */
  compressionLevel?: number;
  following?: FollowingParts;
}

/** Whether a write carries attachments to resolve. */
export function hasAttachments(input: DocInput): boolean {
  return input.attachments !== undefined && input.attachments.length > 0;
}

/**
 * Checks the stubs of one document (412 `missing_stub`) and returns the attachments that stay
 * as they are, by name, or `'conflict'` when the edit cannot apply (its rev is not a live leaf). Reads the parent: for an interactive edit the live leaf `_rev` names (an
 * edit of anything else is a conflict the plan reports), for a replicated one the nearest
 * ancestor on its `_revisions` path whose body is held.
 */
export async function checkStubs(
  store: DocumentStore,
  id: string,
  input: DocInput,
  newEdits: boolean,
): Promise<Map<string, Attachment> | 'conflict' | undefined> {
  const entries = input.attachments ?? [];
  const stubs = entries.filter((e): e is Extract<AttachmentInput, { kind: 'stub' }> => e.kind === 'stub');
  if (stubs.length === 0) return undefined;
  const parent = await parentAttachments(store, id, input, newEdits);
  if (parent === 'conflict') return parent;
  const kept = new Map<string, Attachment>();
  for (const stub of stubs) {
    const att = parent?.find((a) => a.name === stub.name);
    if (att === undefined || (stub.revpos !== undefined && stub.revpos !== att.revpos)) {
      throw new CouchError('missing_stub', `Invalid attachment stub in ${id} for ${stub.name}`);
    }
    kept.set(stub.name, att);
  }
  return kept;
}

async function parentAttachments(
  store: DocumentStore,
  id: string,
  input: DocInput,
  newEdits: boolean,
): Promise<Attachment[] | undefined | 'conflict'> {
  const record = await store.getDoc(id);
  // A rev on a document that does not exist is a conflict, whatever the stubs say.
  if (record === undefined) return newEdits && input.rev !== undefined && input.rev.pos > 0 ? 'conflict' : undefined;
  const tree = parseTree(record.tree);
  if (newEdits) {
    if (input.rev === undefined) {
      // Without a rev only a deleted document can be written (the plan says conflict otherwise),
      // and then it starts afresh: no attachment to keep.
      return winner(tree)?.deleted === false ? 'conflict' : undefined;
    }
    const found = findRev(tree, input.rev);
    if (found === undefined || !found.isLeaf || found.deleted) return 'conflict';
    return bodyAttachments(store, id, input.rev);
  }
  const path = replicatedPath(input);
  for (let k = 1; k < path.ids.length; k++) {
    const rev = { pos: path.start - k, id: path.ids[k]! };
    const found = findRev(tree, rev);
    if (found?.stored) {
      const atts = await bodyAttachments(store, id, rev);
      if (atts !== undefined) return atts;
    }
  }
  return undefined;
}

function replicatedPath(input: DocInput): { start: number; ids: string[] } {
  if (input.revisions !== undefined) {
    return { start: input.revisions.start, ids: input.revisions.ids.map(normalizeRevId) };
  }
  return input.rev === undefined ? { start: 0, ids: [] } : { start: input.rev.pos, ids: [input.rev.id] };
}

async function bodyAttachments(store: DocumentStore, id: string, rev: Rev): Promise<Attachment[] | undefined> {
  const body = await store.getBody(id, `${rev.pos}-${rev.id}`);
  return body === undefined ? undefined : attachmentsOf(body);
}

/**
 * Stores the new bytes of one document's attachments and gives its attachment list, in the
 * order the client wrote them. `kept` is what `checkStubs` found.
 */
export async function storeAttachments(
  store: DocumentStore,
  input: DocInput,
  kept: Map<string, Attachment> | undefined,
  options: ResolveOptions,
): Promise<NewAttachment[]> {
  // Interactive writes give new content the new generation; replicated ones keep what they say.
  const revposOf = (entry: AttachmentInput) => (options.newEdits ? undefined : (entry.revpos ?? 0));
  // Inline data is stored all at once (storage may commit the lot together); parts that follow
  // are read in the order they come.
  const out: (NewAttachment | Promise<NewAttachment>)[] = [];
  for (const entry of input.attachments ?? []) {
    if (entry.kind === 'stub') out.push(kept!.get(entry.name)!);
    else if (entry.kind === 'data') {
      out.push(
        storeAttachmentBytes(store, [entry.bytes], {
          name: entry.name,
          contentType: entry.contentType,
          maxBytes: options.maxAttachmentBytes,
          ...(options.compressionLevel === undefined ? {} : { compressionLevel: options.compressionLevel }),
        }).then((bytes) => ({ name: entry.name, contentType: entry.contentType, revpos: revposOf(entry), ...bytes })),
      );
    } else out.push(await storeFollowing(store, entry, revposOf(entry), options));
  }
  return Promise.all(out);
}

/** Checks what can be checked of new content before any byte is stored: inline sizes (413). */
export function checkSizes(input: DocInput, maxAttachmentBytes: number): void {
  for (const entry of input.attachments ?? []) {
    const size = entry.kind === 'data' ? entry.bytes.length : entry.kind === 'follows' ? entry.length : 0;
    if (size > maxAttachmentBytes) throw new CouchError('attachment_too_large', entry.name);
  }
}

async function storeFollowing(
  store: DocumentStore,
  entry: Extract<AttachmentInput, { kind: 'follows' }>,
  revpos: number | undefined,
  options: ResolveOptions,
): Promise<NewAttachment> {
  if (options.following === undefined) {
    // CouchDB crashes (500) on `follows` outside a multipart request: the client's mistake.
    throw new CouchError('bad_request', `Attachment ${entry.name} says it follows, but the request is not multipart.`);
  }
  const gzipped = entry.encodedLength !== undefined;
  // An entry declared 0 bytes long is a 0-byte attachment, whatever its part holds (CouchDB's
  // quirk: it never reads that part); the part is passed over, so the next entry gets its own.
  let source = options.following(entry.name);
  if ((entry.encodedLength ?? entry.length) === 0) {
    for await (const _ of source) {
      // skipped
    }
    source = [];
  }
  const bytes = await storeAttachmentBytes(store, source, {
    name: entry.name,
    contentType: entry.contentType,
    gzipped,
    maxBytes: options.maxAttachmentBytes,
    expectedLength: entry.encodedLength ?? entry.length,
    ...(options.compressionLevel === undefined ? {} : { compressionLevel: options.compressionLevel }),
  });
  // CouchDB checks a declared digest against the bytes of the part (couch_db:with_stream), so a
  // replicator's digest of a compressible attachment sent uncompressed is over those; the stored
  // digest (over the gzip stream made here) is taken too.
  if (entry.digest !== undefined && entry.digest !== bytes.receivedDigest && entry.digest !== bytes.digest) {
    throw new CouchError('bad_request', `The digest of attachment ${entry.name} does not match its bytes.`);
  }
  // Declared lengths win for parts sent gzipped (CouchDB keeps the JSON's values).
  const att: NewAttachment = {
    name: entry.name,
    contentType: entry.contentType,
    revpos,
    digest: bytes.digest,
    length: gzipped ? entry.length : bytes.length,
  };
  const encodedLength = gzipped ? entry.encodedLength : bytes.encodedLength;
  if (encodedLength !== undefined) att.encodedLength = encodedLength;
  return att;
}
