/** Server-level endpoints: welcome, health, uuids, database list. */
import { requireAdmin } from '../../auth/index.js';
import { SECRET_KEY } from '../../auth/session-secret.js';
import { CouchError } from '../../errors.js';
import type { RequestContext } from '../context.js';
import { ifNoneMatch, opaqueEtag, sendJson, sendText } from '../respond.js';
import { UuidGenerator } from '../../server/uuids.js';
// The parser alone: the view engine's query side (views/query/index.ts) loads with the first view or `_all_docs` query.
import { ALL_DOCS, parseQuery } from '../../views/query/query-params.js';
import { checkJsonType, readJson } from '../body.js';
import { compareIds } from '../../documents/id-order.js';
import { JsonObject, toPlain } from '../../json/index.js';
import { dbNotFound } from '../../errors.js';
import { dbInfo, dbOf } from './databases.js';

export const VERSION = '3.5.0';
/** CouchDB's `[uuids] max_count`. */
const DEFAULT_MAX_UUIDS = 1000;
export const VENDOR_VERSION = '0.1.0';
/** CouchDB names its build here; clients only show it. */
const GIT_SHA = `divan-${VENDOR_VERSION}`;

export const server = {
  async welcome(ctx: RequestContext): Promise<void> {
    const uuid = await ctx.server.loadUuid();
    sendJson(ctx, 200, {
      couchdb: 'Welcome',
      version: VERSION,
      git_sha: GIT_SHA,
      uuid,
      // What Fauxton and clients look for before offering a feature (partitioned databases).
      features: ['partitioned'],
      vendor: { name: 'Divan', version: VENDOR_VERSION },
    });
  },

  /**
   * What a load balancer asks before sending requests here: not while the storage is away (a
   * one-row read of it fails, and dispatch answers 503 `service_unavailable`).
   */
  async up(ctx: RequestContext): Promise<void> {
    await ctx.server.storage.getServerValue(SECRET_KEY);
    sendJson(ctx, 200, { status: 'ok', seeds: {} });
  },

  /** `count` ids by the `[uuids] algorithm` configured, with an ETag and CouchDB's no-cache headers. */
  uuids(ctx: RequestContext): void {
    const raw = ctx.query.get('count') ?? '1';
    const count = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(count >= 0)) throw new CouchError('bad_request', 'count must be a positive integer');
    const max = Number(ctx.server.config.uuids?.max_count ?? DEFAULT_MAX_UUIDS);
    if (count > (Number.isInteger(max) ? max : DEFAULT_MAX_UUIDS)) {
      throw new CouchError('bad_request', 'count parameter too large');
    }
    const { algorithm, suffix } = UuidGenerator.settingsOf(ctx.server.config);
    const uuids = Array.from({ length: count }, () => ctx.server.uuids.next(algorithm, suffix));
    const etag = opaqueEtag(...uuids);
    if (ifNoneMatch(ctx, etag)) return sendText(ctx, 304, '', { ETag: etag });
    sendJson(
      ctx,
      200,
      { uuids },
      {
        'Cache-Control': 'must-revalidate, no-cache',
        Pragma: 'no-cache',
        // A past date, on purpose (CouchDB's): no cache keeps ids.
        Expires: 'Mon, 01 Jan 1990 00:00:00 GMT',
        ETag: etag,
      },
    );
  },

  async allDbs(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, await selectDbs(ctx));
  },

  /** `GET /_dbs_info`: the info of every database `_all_dbs` would list (same parameters). */
  async dbsInfo(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const rows = [];
    for (const name of await selectDbs(ctx)) rows.push({ key: name, info: await dbInfo(await ctx.server.db(name)) });
    sendJson(ctx, 200, rows);
  },

  /** `POST /_dbs_info {"keys": [...]}`: one row per name, a missing database as an error row. */
  async dbsInfoOf(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    checkJsonType(ctx);
    const body = await readJson(ctx);
    if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    const keys = body.get('keys');
    if (keys === undefined) throw new CouchError('bad_request', '`keys` member must exist.');
    if (!Array.isArray(keys)) throw new CouchError('bad_request', '`keys` member must be an array.');
    if (keys.length > MAX_DBS_INFO_KEYS) throw new CouchError('bad_request', 'too_many_keys');
    const rows = [];
    for (const key of keys) {
      const plain = toPlain(key);
      try {
        if (typeof plain !== 'string') throw dbNotFound();
        rows.push({ key: plain, info: await dbInfo(await ctx.server.db(plain)) });
      } catch (error) {
        if (!(error instanceof CouchError) || error.status !== 404) throw error;
        rows.push({ key: plain, error: 'not_found' });
      }
    }
    sendJson(ctx, 200, rows);
  },
};

/** CouchDB's `[chttpd] max_db_number_for_dbs_info_req` default. */
const MAX_DBS_INFO_KEYS = 100;

/**
 * The database names `_all_dbs` lists: CouchDB reads its query as a view query over the names
 * (`startkey`/`start_key`, `endkey`/`end_key`, `inclusive_end`, `descending`, `skip`, `limit`).
 */
async function selectDbs(ctx: RequestContext): Promise<string[]> {
  const options = parseQuery(ALL_DOCS, ctx.query);
  const { startkey, endkey, inclusiveEnd, descending, skip, limit } = options;
  const names = await ctx.server.listDbs();
  if (descending) names.reverse();
  const direction = descending ? -1 : 1;
  const selected = names.filter((name) => {
    if (startkey !== undefined && direction * compareKeyToName(startkey, name) > 0) return false;
    if (endkey !== undefined) {
      const c = direction * compareKeyToName(endkey, name);
      if (c < 0 || (c === 0 && !inclusiveEnd)) return false;
    }
    return true;
  });
  return selected.slice(skip, limit === undefined ? undefined : skip + limit);
}

/** A key against a name, in CouchDB's order of types (null, booleans, numbers < strings < arrays, objects). */
function compareKeyToName(key: unknown, name: string): number {
  if (typeof key === 'string') return compareIds(key, name);
  return key !== null && typeof key === 'object' ? 1 : -1;
}

/**
 * `/{db}/_design/{ddoc}/_name...` that no route answers: the design document must exist (as in
 * CouchDB, which opens it first), then the answer names the endpoint: any other name is none
 * CouchDB has (404), never a missing attachment.
 */
const DESIGN_FUNCTIONS = new Set(['_show', '_list', '_update', '_rewrite']);

async function designEndpoint(ctx: RequestContext): Promise<void> {
  const db = dbOf(ctx);
  const ddocId = `_design/${String(ctx.params.docid)}`;
  if ((await db.winningBody(ddocId))?.body === undefined) throw new CouchError('not_found', 'missing');
  const fn = String(ctx.params.fn);
  // Written as an attachment, the name is refused as CouchDB refuses it.
  if (ctx.method === 'PUT' && ctx.params.rest === undefined) {
    throw new CouchError('bad_request', `Attachment name '${fn}' starts with prohibited character '_'`);
  }
  if (DESIGN_FUNCTIONS.has(fn)) {
    throw new CouchError('not_implemented', `Not available on this server yet: Design document functions (\`${fn}\`).`);
  }
  throw new CouchError('not_found', `\`${fn}\` is not an endpoint of a design document.`);
}

/** The fallback of every endpoint: 405 with the methods it answers, as CouchDB lists them. */
export const errors = {
  methodNotAllowed(ctx: RequestContext): void {
    const allow = String(ctx.params.allow);
    throw new CouchError('method_not_allowed', `Only ${allow} allowed`);
  },

  /** A CouchDB 1.x endpoint that CouchDB 2+ serves under `/_node/{node}/`. */
  moved(ctx: RequestContext): void {
    const name = String(ctx.params.name);
    throw new CouchError('not_found', `\`/${name}\` is \`/_node/_local/${name}\` since CouchDB 2.0.`);
  },

  designEndpoint,

  /** `/{db}/_temp_view`: gone since CouchDB 2.0. */
  tempViewGone(): void {
    throw new CouchError('gone', 'Temporary views are not supported in CouchDB', 410);
  },

  /** A path under an endpoint that names nothing (`/{db}/_index/x`). */
  notFound(): void {
    throw new CouchError('not_found', 'missing');
  },

  notImplemented(ctx: RequestContext): void {
    // A server path's level (a database's was checked in dispatch, before this).
    if (ctx.params.access === 'server-admin') requireAdmin(ctx.user);
    const what = String(ctx.params.feature ?? 'This endpoint');
    throw new CouchError('not_implemented', `Not available on this server yet: ${what}.`);
  },
};
