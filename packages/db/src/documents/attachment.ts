/**
 * An attachment as a revision refers to it (its bytes live in storage under `digest`), and how a
 * revision's attachments ride in its stored body text.
 *
 * The stored body of a revision with attachments starts with `"_attachments"`, the stubs exactly
 * as CouchDB shows them (and as map functions see them), then `"_encodings"` for the ones stored
 * gzipped, then the body's own members: `{"_attachments":{…},"_encodings":{"a.txt":57},"x":1}`.
 * A body's own top-level members never start with `_`, so the prefix is unambiguous, a body
 * without attachments is stored exactly as before, and `renderDoc` moves the stubs to the end
 * without parsing anything.
 */
import { parseJson, toPlain, type JsonObject } from '../json/index.js';

/** One attachment of a revision. */
export interface Attachment {
  name: string;
  contentType: string;
  /** The generation of the revision that last wrote the content. */
  revpos: number;
  /** `md5-<base64>` of the stored bytes (the gzip stream when `encodedLength` is set). */
  digest: string;
  /** The identity length (for uploads sent gzipped: the stored length, as CouchDB). */
  length: number;
  /** Set when the bytes are stored as a gzip stream: their length. */
  encodedLength?: number;
}

const PREFIX = '{"_attachments":';
const ENCODINGS = ',"_encodings":';

/** The body text a revision is stored with: its attachments (if any) in front of its own members. */
export function storedBody(bodyJson: string, atts: readonly Attachment[]): string {
  if (atts.length === 0) return bodyJson;
  let out = `${PREFIX}${stubsJson(atts)}`;
  const encoded = atts.filter((att) => att.encodedLength !== undefined);
  if (encoded.length > 0) {
    out += `${ENCODINGS}{${encoded.map((att) => `${JSON.stringify(att.name)}:${att.encodedLength}`).join(',')}}`;
  }
  return bodyJson.length > 2 ? `${out},${bodyJson.slice(1)}` : `${out}}`;
}

/** A stored body taken apart: the stubs' JSON text (undefined: no attachments) and the body's own text. */
export interface SplitBody {
  stubs: string | undefined;
  /** `{"name": encodedLength}` text, when any attachment is stored gzipped. */
  encodings: string | undefined;
  body: string;
}

export function splitStoredBody(text: string): SplitBody {
  if (!text.startsWith(PREFIX)) return { stubs: undefined, encodings: undefined, body: text };
  const stubsEnd = valueEnd(text, PREFIX.length);
  const stubs = text.slice(PREFIX.length, stubsEnd);
  let at = stubsEnd;
  let encodings: string | undefined;
  if (text.startsWith(ENCODINGS, at)) {
    const end = valueEnd(text, at + ENCODINGS.length);
    encodings = text.slice(at + ENCODINGS.length, end);
    at = end;
  }
  // What is left is `}` or `,"member":…}`.
  const body = text[at] === ',' ? `{${text.slice(at + 1)}` : '{}';
  return { stubs, encodings, body };
}

/** The attachments of a stored body, in their order (empty without any). */
export function attachmentsOf(text: string): Attachment[] {
  const { stubs, encodings } = splitStoredBody(text);
  if (stubs === undefined) return [];
  // parseJson keeps the written order, which JSON.parse does not for integer-like names ("1").
  const parsed = parseJson(stubs) as JsonObject;
  const encoded = encodings === undefined ? {} : (JSON.parse(encodings) as Record<string, number>);
  const out: Attachment[] = [];
  for (const [name, value] of parsed.entries()) {
    const stub = toPlain(value) as unknown as StubJson;
    const att: Attachment = {
      name,
      contentType: stub.content_type,
      revpos: stub.revpos,
      digest: stub.digest,
      length: stub.length,
    };
    const encodedLength = encoded[name];
    if (encodedLength !== undefined) att.encodedLength = encodedLength;
    out.push(att);
  }
  return out;
}

interface StubJson {
  content_type: string;
  revpos: number;
  digest: string;
  length: number;
}

/** The stubs object as CouchDB writes it: `content_type`, `revpos`, `digest`, `length`, `stub`. */
export function stubsJson(atts: readonly Attachment[]): string {
  return `{${atts.map((att) => `${JSON.stringify(att.name)}:${stubJson(att, false)}`).join(',')}}`;
}

/** One stub, with `encoding`/`encoded_length` when asked and stored gzipped. */
export function stubJson(att: Attachment, encodingInfo: boolean): string {
  return `{${head(att)},"length":${att.length},"stub":true${encodingInfo ? encodingJson(att) : ''}}`;
}

/** An attachment with its content inline (`attachments=true`): no `length`, CouchDB's order. */
export function dataJson(att: Attachment, base64: string, encodingInfo: boolean): string {
  return `{${head(att)},"data":"${base64}"${encodingInfo ? encodingJson(att) : ''}}`;
}

/** An attachment whose bytes follow as a multipart part: encoding info always. */
export function followsJson(att: Attachment): string {
  return `{${head(att)},"length":${att.length},"follows":true${encodingJson(att)}}`;
}

function head(att: Attachment): string {
  return `"content_type":${JSON.stringify(att.contentType)},"revpos":${att.revpos},"digest":${JSON.stringify(att.digest)}`;
}

function encodingJson(att: Attachment): string {
  return att.encodedLength === undefined ? '' : `,"encoding":"gzip","encoded_length":${att.encodedLength}`;
}

/** The 16 bytes of an `md5-<base64>` digest (what the rev hash takes). */
export function digestBytes(digest: string): Buffer {
  return Buffer.from(digest.slice(4), 'base64');
}

/** The index just past the JSON object or array starting at `start` (strings skipped, escapes honoured). */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error('stored attachments are not well-formed JSON');
}
