/**
 * `/_session` (chttpd_auth / couch_httpd_auth): who am I, log in with a name and password for an
 * `AuthSession` cookie, log out. The server keeps no session state: logging out only clears the
 * browser's cookie.
 */
import { sessionCookieHeader } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import type { RequestContext } from '../context.js';
import { parseBody, readBody } from '../body.js';
import { origin } from '../location.js';
import { sendJson } from '../respond.js';

export const session = {
  show(ctx: RequestContext): void {
    if (ctx.query.get('basic') === 'true' && ctx.user.name === null) {
      throw new CouchError('unauthorized', 'Please login.');
    }
    const info: Record<string, unknown> = { authentication_handlers: ctx.server.auth.handlers };
    if (ctx.authenticatedBy !== undefined) info.authenticated = ctx.authenticatedBy;
    const authenticationDb = ctx.server.config.chttpd_auth?.authentication_db;
    if (authenticationDb) info.authentication_db = authenticationDb;
    sendJson(ctx, 200, { ok: true, userCtx: ctx.user, info });
  },

  async create(ctx: RequestContext): Promise<void> {
    const { name, password } = await credentialsOf(ctx);
    const auth = ctx.server.auth;
    let user;
    try {
      user = await auth.login(name, password, () => ctx.req.socket.remoteAddress ?? '');
    } catch (error) {
      if (error instanceof CouchError && error.status === 401) {
        setSessionCookie(ctx, '');
        return answer(ctx, 401, error.toJSON(), ctx.query.get('fail'));
      }
      throw error;
    }
    const cookie = await auth.cookieFor(name);
    if (cookie !== undefined) setSessionCookie(ctx, cookie);
    answer(ctx, 200, { ok: true, name: user.name, roles: user.roles }, ctx.query.get('next'));
  },

  destroy(ctx: RequestContext): void {
    setSessionCookie(ctx, '');
    answer(ctx, 200, { ok: true }, ctx.query.get('next'));
  },
};

/** The status and body, or a 302 to `redirect` (on this server) with the same body. */
function answer(ctx: RequestContext, status: number, body: unknown, redirect: string | null): void {
  if (redirect === null) return sendJson(ctx, status, body);
  sendJson(ctx, 302, body, { Location: origin(ctx) + redirect });
}

/** Sets the session cookie (an empty value clears it) with the configured attributes. */
export function setSessionCookie(ctx: RequestContext, value: string): void {
  const secure = (ctx.req.socket as { encrypted?: boolean }).encrypted === true;
  const header = sessionCookieHeader(value, Date.now(), ctx.server.auth.timeoutSec, { ...ctx.server.cookie, secure });
  ctx.res.setHeader('Set-Cookie', header);
}

/** The name and password of a login, from a JSON or form body. */
async function credentialsOf(ctx: RequestContext): Promise<{ name: string; password: string }> {
  const type = (ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  let fields: Record<string, unknown>;
  if (type === 'application/json') {
    const value = parseBody(await readBody(ctx));
    if (!(value instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    fields = toPlain(value) as Record<string, unknown>;
  } else if (type === 'application/x-www-form-urlencoded') {
    fields = Object.fromEntries(new URLSearchParams((await readBody(ctx)).toString('utf8')));
  } else {
    throw new CouchError(
      'bad_content_type',
      "Content-Type must be 'application/x-www-form-urlencoded' or 'application/json'",
    );
  }
  const { name, username, password = '' } = fields;
  if (name !== undefined && username !== undefined && name !== username) {
    throw new CouchError('bad_request', 'request body contains different usernames');
  }
  const user = name ?? username;
  if (user === undefined) throw new CouchError('bad_request', 'request body must contain a username');
  if (typeof user !== 'string' || typeof password !== 'string') {
    throw new CouchError('bad_request', 'The name and password must be strings.');
  }
  return { name: user, password };
}
