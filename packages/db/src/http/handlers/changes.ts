/**
 * `_changes`: normal, longpoll and continuous feeds over integer sequences (the seed's and
 * CouchDB 1.x's form; clients treat sequences as opaque). Longpoll and continuous wait on the
 * database's change notifications, never by polling storage. Parameters are parsed as chttpd's
 * parse_changes_query: from the query string only, booleans are exactly `true`; values its
 * Erlang code crashes on (`limit=abc`, `timeout=abc`, `style=bogus`) are 400s that name the parameter.
 */
import { CouchError, notFound } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import { changeRows, type ChangesOptions } from '../../documents/changes.js';
import type { Database } from '../../documents/database.js';
import { isDesignId } from '../../documents/doc-id.js';
import { checkJsonType, parseBody, readBody } from '../body.js';
import type { RequestContext } from '../context.js';
import { parseJsonParam } from '../../support/query-values.js';
import { opaqueEtag, sendText, streamRows } from '../respond.js';
import { dbOf } from './databases.js';

/** CouchDB's `[chttpd] changes_timeout`: the longest a feed waits without a heartbeat. */
const DEFAULT_TIMEOUT = 60_000;

interface FeedRequest {
  feed: 'normal' | 'longpoll' | 'continuous' | 'eventsource';
  options: ChangesOptions;
  /** How long to wait for changes; Infinity with a heartbeat (the feed then never times out). */
  timeout: number;
  heartbeat: number | undefined;
}

export const changes = {
  index: (ctx: RequestContext) => serve(ctx, undefined),

  async query(ctx: RequestContext): Promise<void> {
    await dbOf(ctx);
    if (ctx.query.get('filter') === '_doc_ids') checkJsonType(ctx);
    const bytes = await readBody(ctx);
    // An empty POST body is fine (no doc_ids); anything else must be a JSON object.
    if (bytes.length === 0) return serve(ctx, {});
    const body = parseBody(bytes);
    if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    return serve(ctx, toPlain(body) as Record<string, unknown>);
  },
};

async function serve(ctx: RequestContext, body: Record<string, unknown> | undefined): Promise<void> {
  const db = await dbOf(ctx);
  const request = await parseRequest(ctx.query, body, db, ctx.req.headers['last-event-id']);
  if (request.feed === 'normal') return normal(ctx, db, request.options, await etagOf(db));
  if (request.feed === 'longpoll') return longpoll(ctx, db, request);
  return continuous(ctx, db, request);
}

/** An integer parameter (an optional sign and digits, as Erlang's list_to_integer); CouchDB crashes on others, we answer 400. */
function integerParam(name: string, raw: string, min = -Infinity): number {
  const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min)) {
    const what = min === 0 ? 'a non-negative integer' : 'an integer';
    throw new CouchError('bad_request', `\`${name}\` must be ${what}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

async function parseRequest(
  query: URLSearchParams,
  body: Record<string, unknown> | undefined,
  db: Database,
  lastEventId: string | string[] | undefined,
): Promise<FeedRequest> {
  let feed = 'normal';
  let descending = false;
  let sinceRaw = '0';
  let limit: number | undefined;
  let style = 'main_only';
  let heartbeat: number | undefined;
  let timeout: number | undefined;
  let includeDocs = false;
  let conflicts = false;
  let attachments = false;
  let attEncodingInfo = false;
  let filterName: string | undefined;
  for (const [rawKey, value] of query) {
    switch (rawKey.toLowerCase()) {
      case 'feed':
        feed = value === 'live' ? 'continuous' : value;
        break;
      case 'descending':
        descending = value === 'true';
        break;
      case 'since':
      case 'last-event-id':
        sinceRaw = value;
        break;
      case 'limit':
        limit = integerParam('limit', value, 0);
        break;
      case 'style':
        if (value !== 'main_only' && value !== 'all_docs') {
          throw new CouchError(
            'bad_request',
            `\`style\` must be \`main_only\` or \`all_docs\`, got ${JSON.stringify(value)}`,
          );
        }
        style = value;
        break;
      case 'heartbeat':
        heartbeat = value === 'true' ? DEFAULT_TIMEOUT : parseHeartbeat(value);
        break;
      case 'timeout':
        timeout = integerParam('timeout', value);
        break;
      case 'include_docs':
        includeDocs = value === 'true';
        break;
      case 'conflicts':
        conflicts = value === 'true';
        break;
      case 'attachments':
        attachments = value === 'true';
        break;
      case 'att_encoding_info':
        attEncodingInfo = value === 'true';
        break;
      case 'filter':
        filterName = value;
        break;
      default:
        break; // unknown params are ignored, as CouchDB
    }
  }
  if (feed !== 'normal' && feed !== 'longpoll' && feed !== 'continuous' && feed !== 'eventsource') {
    throw new CouchError('bad_request', 'Supported `feed` types: normal, continuous, live, longpoll, eventsource');
  }
  // An EventSource reconnecting resumes from the last id it saw.
  if (feed === 'eventsource' && typeof lastEventId === 'string') sinceRaw = lastEventId;
  const options: ChangesOptions = {
    since: await parseSince(sinceRaw, descending, db),
    descending,
    limit,
    includeDocs,
    conflicts,
    attachments,
    attEncodingInfo,
    allLeaves: style === 'all_docs',
    ...(await filterOf(filterName, query, body, db)),
  };
  return {
    feed,
    options,
    timeout: heartbeat !== undefined ? Infinity : Math.min(DEFAULT_TIMEOUT, timeout ?? DEFAULT_TIMEOUT),
    heartbeat,
  };
}

function parseHeartbeat(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) {
    throw new CouchError(
      'bad_request',
      'Invalid heartbeat value. Expecting a positive integer value (in milliseconds).',
    );
  }
  const ms = Number(value);
  if (ms <= 0)
    throw new CouchError('bad_request', 'The heartbeat value should be a positive integer (in milliseconds).');
  return ms;
}

/** `now`, an integer, or a CouchDB 2+/3 style `N-opaque` sequence a client may hold from elsewhere. */
async function parseSince(raw: string, descending: boolean, db: Database): Promise<number> {
  // Descending feeds start from the newest change whatever since says.
  if (raw === 'now') return descending ? 0 : db.updateSeq();
  const match = /^(\d+)(-.+)?$/.exec(raw);
  if (match === null) throw new CouchError('bad_request', "Malformed sequence supplied in 'since' parameter.");
  return Number(match[1]);
}

async function filterOf(
  name: string | undefined,
  query: URLSearchParams,
  body: Record<string, unknown> | undefined,
  db: Database,
): Promise<Pick<ChangesOptions, 'filter' | 'docIds'>> {
  if (name === undefined || name === '') return {};
  if (name === '_design') return { filter: (record) => isDesignId(record.id) };
  if (name === '_doc_ids') {
    // GET reads the JSON param, POST the body (couch_changes:get_doc_ids).
    const raw = query.get('doc_ids');
    const ids = body !== undefined ? body.doc_ids : raw === null ? null : parseJsonParam(raw);
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      throw new CouchError('bad_request', '`doc_ids` filter parameter is not a list of doc ids.');
    }
    const docIds = new Map<string, number>();
    for (const id of ids as string[]) docIds.set(id, (docIds.get(id) ?? 0) + 1);
    return { docIds };
  }
  if (name === '_selector' || name === '_view') {
    throw new CouchError('not_implemented', `The ${name} filter is not supported by this server yet.`);
  }
  const parts = name.split('/').filter((part) => part !== '');
  if (parts.length !== 2) throw new CouchError('bad_request', '`filter` must be of the form `designname/filtername`');
  const ddocId = `_design/${parts[0]}`;
  if ((await db.winningBody(ddocId)) === undefined) {
    throw notFound((await db.record(ddocId))?.deleted ? 'deleted' : 'missing');
  }
  throw new CouchError('not_implemented', 'Design document filter functions are not supported by this server yet.');
}

/** The normal feed's opaque ETag: it changes with the database, as CouchDB's (db info based). */
async function etagOf(db: Database): Promise<string> {
  const meta = await db.meta();
  return opaqueEtag(db.name, meta.createdAt, meta.updateSeq, meta.docCount, meta.docDelCount);
}

/**
 * The changes a feed cut by its limit did not reach: those after its last row in the order it
 * walked (newer ones ascending, older ones descending), whatever the filter, as CouchDB counts them.
 */
async function pendingAfter(db: Database, options: ChangesOptions, lastSeq: number, returned: number): Promise<number> {
  if (!options.descending) return db.store.countChanges(lastSeq);
  const all = await db.store.countChanges(options.since);
  return returned === 0 ? all : all - (await db.store.countChanges(lastSeq - 1));
}

/** The rows after `since`, then `last_seq` and `pending`, as text pieces (head, rows, tail). */
function feed(db: Database, options: ChangesOptions): { rows: AsyncIterable<string>; tail: () => Promise<string> } {
  let lastSeq = options.since;
  let count = 0;
  const rows = (async function* () {
    for await (const row of changeRows(db, options)) {
      lastSeq = row.seq;
      count++;
      yield row.json;
    }
  })();
  const tail = async () => {
    // Without a limit cut the fold reached the end: last_seq is the database's current sequence.
    const done = options.limit === undefined || count < options.limit;
    if (done && !options.descending) lastSeq = Math.max(lastSeq, await db.updateSeq());
    return `],"last_seq":${lastSeq},"pending":${done ? 0 : await pendingAfter(db, options, lastSeq, count)}}`;
  };
  return { rows, tail };
}

async function normal(ctx: RequestContext, db: Database, options: ChangesOptions, etag?: string): Promise<void> {
  if (etag !== undefined && ctx.req.headers['if-none-match'] === etag) return sendText(ctx, 304, '', { ETag: etag });
  const { rows, tail } = feed(db, options);
  await streamRows(ctx, 200, '{"results":[', rows, tail, etag === undefined ? undefined : { ETag: etag });
}

/** Waits for the next change after `since` (or the timeout), then answers as a normal feed. */
async function longpoll(ctx: RequestContext, db: Database, request: FeedRequest): Promise<void> {
  const { options } = request;
  if (options.descending || options.limit === 0 || (await hasChanges(db, options))) return normal(ctx, db, options);
  if (request.heartbeat === undefined) {
    await waitForChange(ctx, db, options, request.timeout);
    return normal(ctx, db, options);
  }
  // With a heartbeat CouchDB starts the response at once and sends a newline now and then.
  const { res } = ctx;
  startStream(ctx);
  res.write('{"results":[\n');
  const timer = setInterval(() => res.write('\n'), request.heartbeat);
  try {
    await waitForChange(ctx, db, options, Infinity);
  } finally {
    clearInterval(timer);
  }
  if (res.destroyed) return;
  const { rows, tail } = feed(db, options);
  const all: string[] = [];
  for await (const row of rows) all.push(row);
  res.end(`${all.join(',\r\n')}\n${await tail()}\n`);
}

function startStream(ctx: RequestContext): void {
  const { res } = ctx;
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'must-revalidate');
}

async function hasChanges(db: Database, options: ChangesOptions): Promise<boolean> {
  for await (const _ of changeRows(db, { ...options, includeDocs: false, limit: 1 })) return true;
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
      hasChanges(db, options).then(
        (has) => {
          if (has) finish();
        },
        () => finish(),
      );
    });
    // setTimeout would fire at once for Infinity (it overflows to 1 ms).
    if (Number.isFinite(timeout)) timer = setTimeout(finish, timeout);
    ctx.res.on('close', finish);
  });
}

/**
 * One JSON object per line as changes happen, until the timeout (or limit), then `last_seq`.
 * `eventsource` is the same feed as server-sent events (`data:`/`id:` per change, no last line).
 */
async function continuous(ctx: RequestContext, db: Database, request: FeedRequest): Promise<void> {
  const { res } = ctx;
  const { options } = request;
  const events = request.feed === 'eventsource';
  startStream(ctx);
  if (events) {
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
  }
  if (ctx.method === 'HEAD') {
    res.end();
    return;
  }
  let since = options.since;
  let left = options.limit ?? Infinity;
  const deadline = Date.now() + request.timeout;
  const beat = events ? 'event: heartbeat\ndata: \n\n' : '\n';
  const heartbeat = request.heartbeat === undefined ? undefined : setInterval(() => res.write(beat), request.heartbeat);
  try {
    while (!res.destroyed && left > 0) {
      for await (const row of changeRows(db, { ...options, since, limit: left === Infinity ? undefined : left })) {
        res.write(events ? `data: ${row.json}\nid: ${row.seq}\n\n` : `${row.json}\n`);
        since = row.seq;
        left--;
      }
      if (left <= 0 || options.descending) break;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await waitForChange(ctx, db, { ...options, since }, remaining);
      if (Date.now() >= deadline && !(await hasChanges(db, { ...options, since }))) break;
    }
  } finally {
    if (heartbeat !== undefined) clearInterval(heartbeat);
  }
  if (res.destroyed) return;
  if (events) {
    res.end();
    return;
  }
  // A feed that ran to its end has seen every change: last_seq is the current sequence then.
  const cut = left <= 0;
  const lastSeq = cut || options.descending ? since : Math.max(since, await db.updateSeq());
  const returned = (options.limit ?? Infinity) - left;
  const pending = cut ? await pendingAfter(db, options, lastSeq, returned) : 0;
  res.end(`{"last_seq":${lastSeq},"pending":${pending}}\n`);
}
