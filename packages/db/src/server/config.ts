/**
 * `/_node/{node}/_config` as CouchDB lays it out (section → key → string value), made from the
 * settings this server really has. Each comes from a command-line flag or is fixed by design;
 * none can change at run time yet, so the HTTP layer answers writes with a refusal.
 */
import { ADMINS_FILE_NAME } from '../auth/index.js';
import type { CouchServer } from './couch-server.js';

/** CouchDB 3.5's `[csp] utils_header_value` default (chttpd_misc), sent with every `/_utils` file. */
export const UTILS_CSP =
  "child-src 'self' data: blob:; default-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline';";

export type ConfigSections = Record<string, Record<string, string>>;

export async function readConfig(couch: CouchServer): Promise<ConfigSections> {
  return {
    // The stored hashes, as CouchDB shows its `[admins]` section to admins.
    admins: await adminHashes(couch),
    chttpd: { max_http_request_size: String(couch.maxBodyBytes) },
    // One copy and one shard of every database: what a single node has.
    cluster: { n: '1', q: '1' },
    couchdb: {
      max_attachment_size: String(couch.maxAttachmentBytes),
      single_node: 'true',
      uuid: couch.uuid,
    },
    csp: { utils_enable: 'true', utils_header_value: UTILS_CSP },
  };
}

async function adminHashes(couch: CouchServer): Promise<Record<string, string>> {
  const text = await couch.storage.getServerValue(ADMINS_FILE_NAME);
  const admins = text === undefined ? undefined : (JSON.parse(text) as { admins?: Record<string, string> }).admins;
  const out: Record<string, string> = {};
  for (const name of couch.admins.names()) out[name] = admins?.[name] ?? '';
  return out;
}
