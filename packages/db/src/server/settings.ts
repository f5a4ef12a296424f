/**
 * The settings the config API can change at run time, from the start options (defaults) and the
 * stored config sections, with CouchDB's names: `[chttpd] enable_cors`, `[cors] origins,
 * credentials, methods, headers`, `[chttpd_auth] timeout`, `[couchdb] users_db_security_editable`,
 * `[jwt_keys]`, `[jwt_auth] roles_claim_path (or roles_claim_name), required_claims`,
 * `[chttpd_auth] same_site, cookie_domain, allow_persistent_cookies`.
 */
import { CouchError } from '../errors.js';
import type { JwtOptions } from '../auth/jwt.js';
import type { ConfigSections } from './config.js';
import type { CorsOptions } from './cors-settings.js';

export interface LiveSettings {
  cors?: CorsOptions;
  sessionTimeoutSec: number;
  /** `[chttpd_auth] same_site`, `cookie_domain`, `allow_persistent_cookies`. */
  cookie?: { sameSite?: string; domain?: string; persistent?: boolean };
  usersDbSecurityEditable: boolean;
  jwt?: JwtOptions;
}

const SAME_SITE: Record<string, string> = { none: 'None', lax: 'Lax', strict: 'Strict' };

const list = (text: string) =>
  text
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

function bool(value: string | undefined, fallback: boolean, where: string): boolean {
  if (value === undefined) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new CouchError('bad_request', `${where} must be "true" or "false"`);
}

export function effectiveSettings(base: LiveSettings, sections: ConfigSections): LiveSettings {
  const cors = sections.cors ?? {};
  // CouchDB 3 reads `[chttpd] enable_cors`, then `[httpd] enable_cors` (where Fauxton's CORS page writes it).
  const enabled = bool(
    sections.chttpd?.enable_cors ?? sections.httpd?.enable_cors,
    base.cors !== undefined,
    sections.chttpd?.enable_cors === undefined ? '[httpd] enable_cors' : '[chttpd] enable_cors',
  );
  let corsSettings: CorsOptions | undefined;
  if (enabled) {
    const origins = cors.origins === undefined ? (base.cors?.origins ?? []) : list(cors.origins);
    corsSettings = { origins: origins === '*' || origins.includes('*') ? '*' : origins };
    const credentials = bool(cors.credentials, base.cors?.credentials ?? false, '[cors] credentials');
    if (credentials) corsSettings.credentials = true;
    const methods = cors.methods === undefined ? base.cors?.methods : list(cors.methods).map((m) => m.toUpperCase());
    if (methods !== undefined) corsSettings.methods = methods;
    const headers = cors.headers === undefined ? base.cors?.headers : list(cors.headers);
    if (headers !== undefined) corsSettings.headers = headers;
    if (base.cors?.maxAge !== undefined) corsSettings.maxAge = base.cors.maxAge;
  }
  const timeoutText = sections.chttpd_auth?.timeout;
  const timeout = timeoutText === undefined ? base.sessionTimeoutSec : Number(timeoutText);
  if (!Number.isInteger(timeout) || timeout < 1)
    throw new CouchError('bad_request', '[chttpd_auth] timeout must be a positive integer');
  const settings: LiveSettings = {
    sessionTimeoutSec: timeout,
    usersDbSecurityEditable: bool(
      sections.couchdb?.users_db_security_editable,
      base.usersDbSecurityEditable,
      '[couchdb] users_db_security_editable',
    ),
  };
  if (corsSettings !== undefined) settings.cors = corsSettings;
  const auth = sections.chttpd_auth ?? {};
  const cookie: NonNullable<LiveSettings['cookie']> = { ...base.cookie };
  if (auth.same_site !== undefined) {
    const sameSite = SAME_SITE[auth.same_site.toLowerCase()];
    if (sameSite === undefined)
      throw new CouchError('bad_request', '[chttpd_auth] same_site must be none, lax or strict');
    cookie.sameSite = sameSite;
  }
  if (auth.cookie_domain !== undefined && auth.cookie_domain !== '') cookie.domain = auth.cookie_domain;
  cookie.persistent = bool(
    auth.allow_persistent_cookies,
    base.cookie?.persistent ?? true,
    '[chttpd_auth] allow_persistent_cookies',
  );
  settings.cookie = cookie;
  const keys = { ...base.jwt?.keys, ...sections.jwt_keys };
  if (Object.keys(keys).length > 0) {
    const jwtAuth = sections.jwt_auth ?? {};
    const jwt: JwtOptions = { keys };
    const rolesClaim = jwtAuth.roles_claim_path ?? jwtAuth.roles_claim_name ?? base.jwt?.rolesClaim;
    if (rolesClaim !== undefined) jwt.rolesClaim = rolesClaim;
    const required = jwtAuth.required_claims === undefined ? base.jwt?.requiredClaims : list(jwtAuth.required_claims);
    if (required !== undefined) jwt.requiredClaims = required;
    settings.jwt = jwt;
  }
  return settings;
}

/** What `GET /_node/_local/_config` shows for the start options (stored sections go over it). */
export function baseSections(base: LiveSettings): ConfigSections {
  const sections: ConfigSections = {
    chttpd: { enable_cors: String(base.cors !== undefined) },
    // Fauxton's CORS page reads the state here.
    httpd: { enable_cors: String(base.cors !== undefined) },
    chttpd_auth: { timeout: String(base.sessionTimeoutSec), allow_persistent_cookies: 'true' },
    couchdb: { users_db_security_editable: String(base.usersDbSecurityEditable) },
  };
  if (base.cors !== undefined) {
    sections.cors = {
      origins: base.cors.origins === '*' ? '*' : base.cors.origins.join(','),
      credentials: String(base.cors.credentials ?? false),
    };
    if (base.cors.methods !== undefined) sections.cors.methods = base.cors.methods.join(',');
    if (base.cors.headers !== undefined) sections.cors.headers = base.cors.headers.join(',');
  }
  if (base.jwt !== undefined) sections.jwt_keys = { ...base.jwt.keys };
  return sections;
}
