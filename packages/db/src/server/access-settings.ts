/**
 * The server settings of per-document access (documents/access-rules.ts), read from the config
 * sections each time, so `/_node/_local/_config/per_doc_access/…` applies at once:
 * - `[per_doc_access] enable` (default true, CouchDB's false): whether `PUT /db?access=true` may
 *   create an access-enabled database; databases made before it was switched off keep working;
 * - `[per_doc_access] autofill` (default false): a non-admin's write without `_access` gets
 *   `[name]` (create) or the document's current `_access` (update), so unmodified PouchDB syncs.
 */
import type { ConfigSections } from './config.js';

export interface PerDocAccess {
  enable: boolean;
  autofill: boolean;
}

export function perDocAccess(config: ConfigSections): PerDocAccess {
  const section = config.per_doc_access ?? {};
  return { enable: section.enable !== 'false', autofill: section.autofill === 'true' };
}
