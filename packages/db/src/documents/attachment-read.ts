/**
 * Attachments on the way out: a revision's `_attachments` as a read asks for them (stubs, inline
 * base64 data, parts that follow a multipart document), and their bytes as streams (as stored,
 * or decoded from gzip on the fly).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { DocumentStore } from '../storage/contract.js';
import { dataJson, followsJson, stubJson, type Attachment } from './attachment.js';

export interface AttachmentView {
  /** Inline `data` for the attachments newer than `since` (`attachments=true`, `atts_since`). */
  data?: boolean;
  /** `follows` entries instead of data (a multipart answer): encoding info always. */
  follows?: boolean;
  /** Attachments with a revpos up to this generation stay stubs (`atts_since`). */
  since?: number;
  /** `encoding`/`encoded_length` of the ones stored gzipped (`att_encoding_info=true`). */
  encodingInfo?: boolean;
}

/** Whether a view of the attachments differs from the stored stubs. */
export function changesStubs(view: AttachmentView): boolean {
  return view.data === true || view.follows === true || view.encodingInfo === true;
}

/** The `_attachments` text for a read, and the attachments whose bytes follow (multipart). */
export async function renderAttachments(
  store: DocumentStore,
  atts: readonly Attachment[],
  view: AttachmentView,
): Promise<{ text: string; following: Attachment[] }> {
  const since = view.since ?? 0;
  const following: Attachment[] = [];
  const parts: string[] = [];
  for (const att of atts) {
    let json: string;
    if (view.follows && att.revpos > since) {
      json = followsJson(att);
      following.push(att);
    } else if (view.data && !view.follows && att.revpos > since) {
      json = dataJson(att, (await identityBytes(store, att)).toString('base64'), view.encodingInfo === true);
    } else json = stubJson(att, view.encodingInfo === true || view.follows === true);
    parts.push(`${JSON.stringify(att.name)}:${json}`);
  }
  return { text: `{${parts.join(',')}}`, following };
}

/** The stored bytes (a gzip stream for compressed attachments), from `start` to `end` (exclusive). */
export function storedBytes(
  store: DocumentStore,
  att: Attachment,
  start?: number,
  end?: number,
): AsyncIterable<Uint8Array> {
  return store.readAttachment(att.digest, start, end);
}

/** The identity bytes: stored ones, or decoded from their gzip stream as they are read. */
export function identityStream(store: DocumentStore, att: Attachment): AsyncIterable<Uint8Array> {
  if (att.encodedLength === undefined) return storedBytes(store, att);
  const gunzip = createGunzip();
  pipeline(Readable.from(storedBytes(store, att)), gunzip).catch(() => {});
  return gunzip;
}

/** The identity bytes whole (inline `data`: the JSON holds them anyway). */
export async function identityBytes(store: DocumentStore, att: Attachment): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of identityStream(store, att)) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
