/**
 * `_changes`: normal, longpoll and continuous feeds over integer sequences (the seed's and
 * CouchDB 1.x's form; clients treat sequences as opaque). Longpoll and continuous wait on the
 * database's change notifications, never by polling storage.
 */
import { CouchError } from '../../errors.js';
import { JsonObject, fromPlain, toPlain } from '../../json/index.js';
import { changeRows, type ChangesOptions } from '../../documents/changes.js';
import type { Database } from '../../documents/database.js';
import { isDesignId } from '../../documents/doc-id.js';
import { checkJsonType, readJson } from '../body.js';
import type { RequestContext } from '../context.js';
import { boolParam, parseJsonParam, parsePositiveInteger } from '../query.js';
import { streamRows } from '../respond.js';
import { dbOf } from './databases.js';

const DEFAULT_TIMEOUT = 60_000;

interface FeedRequest {
  feed: 'normal' | 'longpoll' | 'continuous';
  options: ChangesOptions;
  timeout: number;
  heartbeat: number | undefined;
}

export const changes = {
  index: (ctx: RequestContext) => serve(ctx, undefined),

  async query(ctx: RequestContext): Promise<void> {
    const filter = ctx.query.get('filter');
    if (filter === '_doc_ids') checkJsonType(ctx);
    const body = await readJson(ctx).catch((error) => {
      // An empty POST body is fine (no doc_ids); anything else must be JSON.
      if (ctx.req.headers['content-length'] === '0') return fromPlain({});
      throw error;
    });
    if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    return serve(ctx, toPlain(body) as Record<string, unknown>);
  },
};

async function serve(ctx: RequestContext, body: Record<string, unknown> | undefined): Promise<void> {
  const db = dbOf(ctx);
  const request = parseRequest(ctx.query, body, db);
  if (request.feed === 'normal') return normal(ctx, db, request.options);
  if (request.feed === 'longpoll') return longpoll(ctx, db, request);
  return continuous(ctx, db, request);
}

function parseRequest(query: URLSearchParams, body: Record<string, unknown> | undefined, db: Database): FeedRequest {
  const feedParam = query.get('feed') ?? 'normal';
  const feed = feedParam === 'eventsource' ? 'continuous' : feedParam;
  if (feed !== 'normal' && feed !== 'longpoll' && feed !== 'continuous') {
    throw new CouchError('bad_request', 'Supported `feed` types: normal, continuous, live, longpoll, eventsource');
  }
  const descending = boolParam(query, 'descending');
  const sinceRaw = query.get('since') ?? (body?.since === undefined ? '0' : String(body.since));
  let since: number;
  if (sinceRaw === 'now') since = descending ? 0 : db.meta().updateSeq;
  else {
    // Also accept CouchDB 2+/3 style "N-opaque" sequences a client may hold from elsewhere.
    const match = /^(\d+)(-.*)?$/.exec(sinceRaw);
    if (match === null) throw new CouchError('bad_request', "Malformed sequence supplied in 'since' parameter.");
    since = Number(match[1]);
  }
  const limitRaw = query.get('limit');
  const style = query.get('style') ?? 'main_only';
  if (style !== 'main_only' && style !== 'all_docs') {
    throw new CouchError('bad_request', 'Invalid `style` parameter: use main_only or all_docs');
  }
  const options: ChangesOptions = {
    since,
    descending,
    limit: limitRaw === null ? undefined : parsePositiveInteger(limitRaw),
    includeDocs: boolParam(query, 'include_docs'),
    conflicts: boolParam(query, 'conflicts'),
    allLeaves: style === 'all_docs',
    filter: filterOf(query, body),
  };
  const timeoutRaw = query.get('timeout');
  const heartbeatRaw = query.get('heartbeat');
  return {
    feed,
    options,
    timeout: timeoutRaw === null ? DEFAULT_TIMEOUT : parsePositiveInteger(timeoutRaw),
    heartbeat:
      heartbeatRaw === null ? undefined : heartbeatRaw === 'true' ? DEFAULT_TIMEOUT : parsePositiveInteger(heartbeatRaw),
  };
}

function filterOf(query: URLSearchParams, body: Record<string, unknown> | undefined): ChangesOptions['filter'] {
  const filter = query.get('filter');
  if (filter === null) return undefined;
  if (filter === '_design') return (record) => isDesignId(record.id);
  if (filter === '_doc_ids') {
    const raw = query.get('doc_ids');
    const ids = raw !== null ? parseJsonParam(raw) : body?.doc_ids;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      throw new CouchError('bad_request', '`doc_ids` filter parameter is not a list of doc ids.');
    }
    const wanted = new Set(ids as string[]);
    return (record) => wanted.has(record.id);
  }
  if (filter.startsWith('_')) throw new CouchError('bad_request', `unknown builtin filter name`);
  throw new CouchError('not_implemented', 'Design document filter functions are not supported by this server yet.');
}

/** The rows after `since`, streamed, then `last_seq` and `pending`. */
async function normal(ctx: RequestContext, db: Database, options: ChangesOptions): Promise<void> {
  let lastSeq = options.descending ? 0 : options.since;
  let count = 0;
  const rows = (function* () {
    for (const row of changeRows(db, options)) {
      lastSeq = row.seq;
      count++;
      yield row.json;
    }
  })();
  await streamRows(ctx, 200, '{"results":[', rows, () => {
    // Without a limit cut the fold reached the end: last_seq is the database's current sequence.
    const done = options.limit === undefined || count < options.limit;
    if (done && !options.descending) lastSeq = Math.max(lastSeq, db.meta().updateSeq);
    const pending = options.descending || done ? 0 : db.store.countChanges(lastSeq);
    return `],"last_seq":${lastSeq},"pending":${pending}}`;
  });
}

/** Waits for the next change after `since` (or the timeout), then answers as a normal feed. */
async function longpoll(ctx: RequestContext, db: Database, request: FeedRequest): Promise<void> {
  const { options } = request;
  if (options.descending || options.limit === 0 || hasChanges(db, options)) return normal(ctx, db, options);
  await waitForChange(ctx, db, options, request.timeout);
  return normal(ctx, db, options);
}

function hasChanges(db: Database, options: ChangesOptions): boolean {
  for (const _ of changeRows(db, { ...options, includeDocs: false, limit: 1 })) return true;
  return false;
}

/** Resolves at the first change that passes the filter, at the timeout, or when the client leaves. */
function waitForChange(ctx: RequestContext, db: Database, options: ChangesOptions, timeout: number): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      unsubscribe();
      ctx.res.off('close', finish);
      resolve();
    };
    const unsubscribe = db.onChange(() => {
      if (hasChanges(db, options)) finish();
    });
    timer = setTimeout(finish, timeout);
    ctx.res.on('close', finish);
  });
}

/** One JSON object per line as changes happen, until the timeout (or limit), then `last_seq`. */
async function continuous(ctx: RequestContext, db: Database, request: FeedRequest): Promise<void> {
  const { res } = ctx;
  const options = { ...request.options };
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'must-revalidate');
  let since = options.since;
  let left = options.limit ?? Infinity;
  const deadline = Date.now() + request.timeout;
  const heartbeat =
    request.heartbeat === undefined ? undefined : setInterval(() => res.write('\n'), Math.max(request.heartbeat, 100));
  try {
    while (!res.destroyed && left > 0) {
      for (const row of changeRows(db, { ...options, since, limit: left === Infinity ? undefined : left })) {
        res.write(`${row.json}\n`);
        since = row.seq;
        left--;
      }
      if (left <= 0 || options.descending) break;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await waitForChange(ctx, db, { ...options, since }, remaining);
      if (Date.now() >= deadline && !hasChanges(db, { ...options, since })) break;
    }
  } finally {
    if (heartbeat !== undefined) clearInterval(heartbeat);
  }
  if (!res.destroyed) res.end(`{"last_seq":${Math.max(since, options.descending ? 0 : since)},"pending":0}\n`);
}
