/**
 * `/_node/_local/_config` (server admins only): CouchDB's ini sections as JSON. Values are
 * strings; `PUT` and `DELETE` answer the old value. `[admins]` writes hash the password and store
 * the admins; the other sections are stored as a server value and applied at once (CORS, the
 * session timeout, `users_db_security_editable`, JWT keys; see server/settings.ts).
 */
import { hashPassword, requireAdmin, saveAdmins } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { BLACKLISTED_SECTIONS, fixedSections, type ConfigSections } from '../../server/config.js';
import { baseSections } from '../../server/settings.js';
import { param, type RequestContext } from '../context.js';
import { readJson } from '../body.js';
import { sendJson } from '../respond.js';

const ADMINS = 'admins';

/**
 * Every section as the server runs with it: the fixed settings, start options, stored values over
 * them, the admins.
 */
function merged(ctx: RequestContext): ConfigSections {
  const couch = ctx.server;
  const sections = fixedSections(couch);
  for (const [section, keys] of Object.entries(baseSections(couch.baseSettings))) {
    sections[section] = { ...sections[section], ...keys };
  }
  for (const [section, keys] of Object.entries(couch.config)) sections[section] = { ...sections[section], ...keys };
  sections[ADMINS] = {};
  for (const name of couch.admins.names()) sections[ADMINS][name] = couch.admins.hashOf(name)!;
  // Sections in name order, as CouchDB lists its ini.
  return Object.fromEntries(Object.entries(sections).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A setting that comes from a start flag or is fixed by design: shown, never changed over HTTP. */
function refuseFixed(ctx: RequestContext, section: string, key: string): void {
  if (BLACKLISTED_SECTIONS.has(section)) {
    throw new CouchError('forbidden', 'Config section blacklisted for modification over HTTP API.');
  }
  if (fixedSections(ctx.server)[section]?.[key] === undefined) return;
  throw new CouchError(
    'forbidden',
    `[${section}] ${key} cannot be changed over HTTP on this server: it comes from a \`divan serve\` flag.`,
  );
}

function unknownValue(): CouchError {
  return new CouchError('not_found', 'unknown_config_value');
}

export const config = {
  /** `POST /_node/_local/_config/_reload`: reads the stored settings again (CouchDB re-reads its ini files). */
  async reload(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    await ctx.server.reloadConfig();
    sendJson(ctx, 200, { ok: true });
  },

  all(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, merged(ctx));
  },

  section(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, merged(ctx)[param(ctx, 'section')] ?? {});
  },

  show(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const value = merged(ctx)[param(ctx, 'section')]?.[param(ctx, 'key')];
    if (value === undefined) throw unknownValue();
    sendJson(ctx, 200, value);
  },

  async update(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const section = param(ctx, 'section');
    const key = param(ctx, 'key');
    const uuid = section === 'couchdb' && key === 'uuid';
    if (!uuid) refuseFixed(ctx, section, key);
    const value = await readJson(ctx);
    if (typeof value !== 'string') throw new CouchError('bad_request', 'The config value must be a JSON string.');
    const old = merged(ctx)[section]?.[key] ?? '';
    const couch = ctx.server;
    if (uuid) {
      // A server taking over from CouchDB takes its uuid, and with it its replications' ids.
      if (!/^[0-9a-f]{32}$/.test(value))
        throw new CouchError('bad_request', 'The uuid must be 32 lower-case hex digits.');
      await couch.changeUuid(value);
    } else if (section === ADMINS) {
      if (key === '' || key.includes(':')) throw new CouchError('bad_request', 'Admin names may not contain ":".');
      couch.admins.set(key, hashPassword(value, { iterations: couch.hashIterations }));
      await saveAdmins(couch.storage, adminHashes(ctx));
    } else {
      await couch.changeConfig(withValue(couch.config, section, key, value));
    }
    sendJson(ctx, 200, old);
  },

  async destroy(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const section = param(ctx, 'section');
    const key = param(ctx, 'key');
    refuseFixed(ctx, section, key);
    const couch = ctx.server;
    if (section === ADMINS) {
      const old = couch.admins.hashOf(key);
      if (old === undefined) throw unknownValue();
      // There is no admin party: the server keeps at least one admin.
      if (couch.admins.names().length === 1)
        throw new CouchError('forbidden', 'The last server admin cannot be deleted.');
      couch.admins.remove(key);
      await saveAdmins(couch.storage, adminHashes(ctx));
      return sendJson(ctx, 200, old);
    }
    const old = couch.config[section]?.[key];
    if (old === undefined) throw unknownValue();
    await couch.changeConfig(withValue(couch.config, section, key, undefined));
    sendJson(ctx, 200, old);
  },
};

function adminHashes(ctx: RequestContext): Map<string, string> {
  const { admins } = ctx.server;
  return new Map(admins.names().map((name) => [name, admins.hashOf(name)!]));
}

function withValue(sections: ConfigSections, section: string, key: string, value: string | undefined): ConfigSections {
  const copy: ConfigSections = {};
  for (const [name, keys] of Object.entries(sections)) copy[name] = { ...keys };
  const keys = (copy[section] ??= {});
  if (value === undefined) delete keys[key];
  else keys[key] = value;
  if (Object.keys(keys).length === 0) delete copy[section];
  return copy;
}
