/**
 * Settings changed at run time through `/_node/_local/_config` (CouchDB's ini sections as
 * `{section: {key: "value"}}`, every value a string), kept as the storage server value
 * `config.json` so every node on one storage reads the same. The server's start options are the
 * defaults; a stored value wins over them.
 */
import type { Storage } from '../storage/contract.js';

export const CONFIG_KEY = 'config.json';

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
