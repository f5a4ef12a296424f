/**
 * Settings changed at run time through `/_node/_local/_config` (CouchDB's ini sections as
 * `{section: {key: "value"}}`, every value a string), kept as the storage server value
 * `config.json` so every node on one storage reads the same. The server's start options are the
 * defaults; a stored value wins over them.
 */
import type { Storage } from '../storage/contract.js';

export const CONFIG_KEY = 'config.json';

/** Sections CouchDB refuses to change over HTTP (`couch_util:check_config_blacklist`): they run code. */
export const BLACKLISTED_SECTIONS = new Set([
  'daemons',
  'external',
  'httpd_design_handlers',
  'httpd_db_handlers',
  'httpd_global_handlers',
  'native_query_servers',
  'os_daemons',
  'query_servers',
  'feature_flags',
]);

export type ConfigSections = Record<string, Record<string, string>>;

type Place = Pick<Storage, 'getServerValue' | 'setServerValue'>;

export async function loadConfig(place: Place): Promise<ConfigSections> {
  const text = await place.getServerValue(CONFIG_KEY);
  if (text === undefined) return {};
  const parsed = JSON.parse(text) as unknown;
  const sections: ConfigSections = {};
  if (typeof parsed !== 'object' || parsed === null) return sections;
  for (const [section, keys] of Object.entries(parsed)) {
    if (typeof keys !== 'object' || keys === null) continue;
    sections[section] = {};
    for (const [key, value] of Object.entries(keys)) if (typeof value === 'string') sections[section][key] = value;
  }
  return sections;
}

export async function saveConfig(place: Place, sections: ConfigSections): Promise<void> {
  await place.setServerValue(CONFIG_KEY, `${JSON.stringify(sections, null, 2)}\n`);
}

/** CouchDB 3.5's `[csp] utils_header_value` default (chttpd_misc), sent with every `/_utils` file. */
export const UTILS_CSP =
  "child-src 'self' data: blob:; default-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline';";

/**
 * Settings this server has but does not take over HTTP (start flags, or fixed by design), shown
 * in `/_node/{node}/_config` as a single CouchDB node shows them: Fauxton reads some of them.
 */
export function fixedSections(server: { uuid: string; databaseDir: string | undefined }): ConfigSections {
  return {
    // One copy and one shard of every database: what a single node has.
    cluster: { n: '1', q: '1' },
    couchdb: {
      ...(server.databaseDir === undefined
        ? {}
        : { database_dir: server.databaseDir, view_index_dir: server.databaseDir }),
      single_node: 'true',
      uuid: server.uuid,
    },
    csp: { utils_enable: 'true', utils_header_value: UTILS_CSP },
  };
}
