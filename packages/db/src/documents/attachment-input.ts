/**
 * The `_attachments` member of a document as a client wrote it, read as CouchDB reads it
 * (couch_att:from_json): each entry a stub that keeps an attachment of the parent revision,
 * inline base64 `data`, or (in a multipart request only) bytes that follow as a part.
 */
import { CouchError } from '../errors.js';
import { JsonNumber, JsonObject, type JsonValue } from '../json/index.js';

export type AttachmentInput =
  | { kind: 'stub'; name: string; revpos: number | undefined }
  | { kind: 'data'; name: string; contentType: string; bytes: Buffer; revpos: number | undefined }
  | {
      kind: 'follows';
      name: string;
      contentType: string;
      /** The identity length declared (the part's length, unless it is sent gzipped). */
      length: number;
      revpos: number | undefined;
      /** The part is a gzip stream of `encodedLength` bytes, stored as it is. */
      encodedLength: number | undefined;
      digest: string | undefined;
    };

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The entries of `_attachments` in their order; entries that are not objects are ignored, as CouchDB does. */
export function readAttachmentsInput(member: JsonObject): AttachmentInput[] {
  const out: AttachmentInput[] = [];
  for (const [name, value] of member.entries()) {
    if (!(value instanceof JsonObject)) continue;
    checkAttachmentName(name);
    const revpos = integerOf(value.get('revpos'));
    if (value.get('stub') === true) {
      out.push({ kind: 'stub', name, revpos });
      continue;
    }
    const contentType = contentTypeOf(value.get('content_type'), name);
    if (value.get('follows') === true) {
      const length = integerOf(value.get('length'));
      if (length === undefined || length < 0) {
        throw new CouchError('bad_request', `Attachment ${name} that follows needs its length.`);
      }
      const encoding = value.get('encoding');
      const encodedLength = encoding === 'gzip' ? integerOf(value.get('encoded_length')) : undefined;
      if (encoding !== undefined && encoding !== 'gzip' && encoding !== 'identity') {
        throw new CouchError('bad_request', `Unsupported encoding of attachment ${name}.`);
      }
      if (encoding === 'gzip' && (encodedLength === undefined || encodedLength < 0)) {
        throw new CouchError('bad_request', `Attachment ${name} sent gzipped needs its encoded_length.`);
      }
      const digest = value.get('digest');
      out.push({
        kind: 'follows',
        name,
        contentType,
        length,
        revpos,
        encodedLength,
        digest: typeof digest === 'string' ? digest : undefined,
      });
      continue;
    }
    const data = value.get('data');
    const bytes = typeof data === 'string' ? decodeBase64(data) : undefined;
    if (bytes === undefined) throw new CouchError('bad_request', `Invalid attachment data for ${name}`);
    out.push({ kind: 'data', name, contentType, bytes, revpos });
  }
  return out;
}

/**
 * The `_attachments` of a `_local` document, which CouchDB drops: it checks only what reading the
 * member checks (couch_att:from_json, and the names), so a bad name or bad inline data is a 400
 * all the same; what only matters when bytes are stored (a `follows` entry's length, the type of
 * `content_type`) is not looked at, since nothing is.
 */
export function checkDroppedAttachments(member: JsonObject): void {
  for (const [name, value] of member.entries()) {
    if (!(value instanceof JsonObject)) continue;
    checkAttachmentName(name);
    if (value.get('stub') === true || value.get('follows') === true) continue;
    const data = value.get('data');
    if (typeof data !== 'string' || decodeBase64(data) === undefined) {
      throw new CouchError('bad_request', `Invalid attachment data for ${name}`);
    }
  }
}

/** CouchDB's rule for every attachment name written (never checked on reads). */
export function checkAttachmentName(name: string): void {
  if (name.startsWith('_')) {
    throw new CouchError('bad_request', `Attachment name '${name}' starts with prohibited character '_'`);
  }
  if (LONE_SURROGATE.test(name)) throw new CouchError('bad_request', 'Attachment name is not UTF-8 encoded');
}

function contentTypeOf(value: JsonValue | undefined, name: string): string {
  if (value === undefined) return DEFAULT_CONTENT_TYPE;
  // CouchDB crashes (500) on a non-string type: a client's mistake, so a 400 here.
  if (typeof value !== 'string') throw new CouchError('bad_request', `The content_type of ${name} must be a string.`);
  return value;
}

function integerOf(value: JsonValue | undefined): number | undefined {
  const n = value instanceof JsonNumber ? Number(value.text) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Anything but the standard alphabet and padding (a negated class scans long strings fast). */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/**
 * Base64 as Erlang's decoder takes it: the standard alphabet, padding required, whitespace
 * anywhere skipped. Undefined for anything else (the base64url alphabet included).
 */
export function decodeBase64(text: string): Buffer | undefined {
  // What clients send is padded base64 without whitespace: recognised by its decoded length,
  // faster than checking each character. Buffer's decoder skips what is not in its alphabet
  // (so any such character leaves fewer bytes) and also takes base64url's - and _, which
  // Erlang's decoder refuses.
  const bytes = Buffer.from(text, 'base64');
  if (text.length % 4 === 0) {
    const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    if (bytes.length === (text.length / 4) * 3 - pad && !text.includes('-') && !text.includes('_')) return bytes;
  }
  let compact = text;
  if (NOT_BASE64.test(compact)) {
    compact = text.replace(/[ \t\r\n]/g, '');
    if (NOT_BASE64.test(compact)) return undefined;
  }
  if (compact.length % 4 !== 0) return undefined;
  const pad = compact.indexOf('=');
  if (pad >= 0 && (pad < compact.length - 2 || (pad === compact.length - 2 && compact[pad + 1] !== '='))) {
    return undefined;
  }
  return Buffer.from(compact, 'base64');
}
