/**
 * `[attachments] compression_level`, read from the config sections as CouchDB's couch_att reads
 * it: 0 stores compressible types as they came, 1..9 gzips them at that deflate level (so the
 * digest, and the revision id, are those CouchDB gives at that level). Default 8.
 */
import { CouchError } from '../errors.js';
import { DEFAULT_COMPRESSION_LEVEL } from '../documents/attachment-bytes.js';
import type { ConfigSections } from './config.js';

/** The level configured now; a value that is not an integer 0..9 is refused (400) when it is set. */
export function attachmentCompressionLevel(sections: ConfigSections): number {
  const text = sections.attachments?.compression_level;
  if (text === undefined) return DEFAULT_COMPRESSION_LEVEL;
  if (!/^\s*\d\s*$/.test(text)) {
    throw new CouchError('bad_request', '[attachments] compression_level must be an integer from 0 (none) to 9');
  }
  return Number(text);
}
