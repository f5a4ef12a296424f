/**
 * The settings the config API can change at run time, from the start options (defaults) and the
 * stored config sections, with CouchDB's names: `[chttpd] enable_cors`, `[couchdb] max_attachment_size`, `[cors] origins,
 * credentials, methods, headers`, `[chttpd_auth] timeout`, `[couchdb] users_db_security_editable`,
 * `[jwt_keys]`, `[jwt_auth] roles_claim_path (or roles_claim_name), required_claims`,
 * `[chttpd_auth] same_site, cookie_domain, allow_persistent_cookies`.
 */
import { CouchError } from '../errors.js';
import type { JwtOptions } from '../auth/jwt.js';
import { PROXY_DEFAULTS, type ProxyAuthOptions } from '../auth/proxy.js';
import type { ConfigSections } from './config.js';
import type { CorsOptions } from './cors-settings.js';

export interface LiveSettings {
  /** `[chttpd] max_http_request_size` (the `--max-body` flag gives the default). */
  maxBodyBytes: number;
  /** `[couchdb] max_attachment_size` (the `--max-attachment` flag gives the default; `infinity`: no limit). */
  maxAttachmentBytes: number;
  cors?: CorsOptions;
  sessionTimeoutSec: number;
  /** `[chttpd_auth] same_site`, `cookie_domain`, `allow_persistent_cookies`. */
  cookie?: { sameSite?: string; domain?: string; persistent?: boolean };
  usersDbSecurityEditable: boolean;
  jwt?: JwtOptions;
  /** Proxy authentication (`[chttpd] authentication_handlers` naming it, `[chttpd_auth]`'s keys). */
  proxy?: ProxyAuthOptions;
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
  const sizeText = sections.chttpd?.max_http_request_size ?? sections.httpd?.max_http_request_size;
  const maxBodyBytes = sizeText === undefined ? base.maxBodyBytes : Number(sizeText);
  if (!/^\d+$/.test(sizeText ?? '0') || !(maxBodyBytes > 0)) {
    throw new CouchError('bad_request', '[chttpd] max_http_request_size must be a positive integer (bytes)');
  }
  const attachmentText = sections.couchdb?.max_attachment_size;
  const maxAttachmentBytes =
    attachmentText === undefined
      ? base.maxAttachmentBytes
      : attachmentText === 'infinity'
        ? Number.POSITIVE_INFINITY
        : Number(attachmentText);
  if (attachmentText !== undefined && attachmentText !== 'infinity' && !/^\d+$/.test(attachmentText)) {
    throw new CouchError('bad_request', '[couchdb] max_attachment_size must be an integer (bytes) or infinity');
  }
  const settings: LiveSettings = {
    maxBodyBytes,
    maxAttachmentBytes,
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
  if (sections.chttpd?.authentication_handlers?.includes('proxy_authentication_handler')) {
    const proxy: ProxyAuthOptions = {
      userHeader: (auth.x_auth_username ?? PROXY_DEFAULTS.userHeader).toLowerCase(),
      rolesHeader: (auth.x_auth_roles ?? PROXY_DEFAULTS.rolesHeader).toLowerCase(),
      tokenHeader: (auth.x_auth_token ?? PROXY_DEFAULTS.tokenHeader).toLowerCase(),
    };
    const useSecret = bool(auth.proxy_use_secret, false, '[chttpd_auth] proxy_use_secret');
    if (useSecret && auth.secret !== undefined && auth.secret !== '') proxy.secret = auth.secret;
    settings.proxy = proxy;
  }
  const keys: Record<string, string> = { ...base.jwt?.keys };
  // CouchDB's ini form: a PEM on one line, its line breaks written `\n`.
  for (const [name, value] of Object.entries(sections.jwt_keys ?? {})) keys[name] = value.replaceAll('\\n', '\n');
  if (Object.keys(keys).length > 0) {
    const jwtAuth = sections.jwt_auth ?? {};
    const jwt: JwtOptions = { keys };
    const rolesClaim = jwtAuth.roles_claim_path ?? jwtAuth.roles_claim_name ?? base.jwt?.rolesClaim;
    if (rolesClaim !== undefined) jwt.rolesClaim = rolesClaim;
    if (jwtAuth.required_claims === undefined) {
      if (base.jwt?.requiredClaims !== undefined) jwt.requiredClaims = base.jwt.requiredClaims;
      if (base.jwt?.requiredClaimValues !== undefined) jwt.requiredClaimValues = base.jwt.requiredClaimValues;
    } else {
      const { names, values } = parseRequiredClaims(jwtAuth.required_claims);
      jwt.requiredClaims = names;
      if (Object.keys(values).length > 0) jwt.requiredClaimValues = values;
    }
    settings.jwt = jwt;
  }
  return settings;
}

/**
 * `[jwt_auth] required_claims` as CouchDB writes it: names, and `{name, "value"}` for a claim that
 * must have that value (`exp, iat, {iss, "https://issuer"}`).
 */
export function parseRequiredClaims(text: string): { names: string[]; values: Record<string, string> } {
  const names: string[] = [];
  const values: Record<string, string> = {};
  const item = /\s*(?:([A-Za-z_][\w.-]*)|\{\s*([A-Za-z_][\w.-]*)\s*,\s*"([^"]*)"\s*\})\s*(?:,|$)/y;
  let at = 0;
  while (at < text.length) {
    item.lastIndex = at;
    const match = item.exec(text);
    if (match === null || match[0] === '') {
      throw new CouchError('bad_request', `[jwt_auth] required_claims: cannot read "${text.slice(at)}"`);
    }
    const name = (match[1] ?? match[2])!;
    names.push(name);
    if (match[2] !== undefined) values[name] = match[3]!;
    at = item.lastIndex;
  }
  return { names, values };
}

/** What `GET /_node/_local/_config` shows for the start options (stored sections go over it). */
export function baseSections(base: LiveSettings): ConfigSections {
  const sections: ConfigSections = {
    chttpd: { enable_cors: String(base.cors !== undefined), max_http_request_size: String(base.maxBodyBytes) },
    // Fauxton's CORS page reads the state here.
    httpd: { enable_cors: String(base.cors !== undefined) },
    chttpd_auth: { timeout: String(base.sessionTimeoutSec), allow_persistent_cookies: 'true' },
    couchdb: {
      max_attachment_size: Number.isFinite(base.maxAttachmentBytes) ? String(base.maxAttachmentBytes) : 'infinity',
      users_db_security_editable: String(base.usersDbSecurityEditable),
    },
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
