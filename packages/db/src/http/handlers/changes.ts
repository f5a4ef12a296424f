/**
 * `_changes`: normal, longpoll and continuous feeds over integer sequences (CouchDB 1.x's
 * form; clients treat sequences as opaque). Longpoll and continuous wait on the
 * database's change notifications, never by polling storage. Parameters are parsed as chttpd's
 * parse_changes_query: from the query string only, booleans are exactly `true`; values its
 * Erlang code crashes on (`limit=abc`, `timeout=abc`, `style=bogus`) are 400s that name the parameter.
 */
import { viewerOf } from '../viewer.js';
import { CouchError } from '../../errors.js';
import { JsonObject } from '../../json/index.js';
import { changeEvents, changeRows, countChangesOf, type ChangesOptions } from '../../documents/changes.js';
import type { Database } from '../../documents/database.js';
import { checkJsonType, parseBody, readBody } from '../body.js';
import { feedFilter } from '../changes-filter.js';
import type { RequestContext } from '../context.js';
import { waitForFeed } from '../feed-wait.js';
import { opaqueEtag, sendText, streamRows, ifNoneMatch } from '../respond.js';
import { dbOf } from './databases.js';

/** CouchDB's `[chttpd] changes_timeout`: the longest a feed waits without a heartbeat. */
const DEFAULT_TIMEOUT = 60_000;

interface FeedRequest {
  feed: 'normal' | 'longpoll' | 'continuous' | 'eventsource';
  options: ChangesOptions;
  /** How long to wait for changes; Infinity with a heartbeat (the feed then never times out). */
  timeout: number;
  heartbeat: number | undefined;
  /** `_doc_ids`/`_design`: CouchDB looks documents up, which shows in `last_seq` and `pending`. */
  lookup: boolean;
  /** `seq_interval`: rows carry their seq only where the remaining limit is a multiple of it. */
  seqInterval: number | undefined;
}

/** CouchDB's `limit` when none is given (#changes_args), which `seq_interval` counts down from. */
const NO_LIMIT = 1_000_000_000_000_000;

export const changes = {
  index: (ctx: RequestContext) => serve(ctx, undefined),

  async query(ctx: RequestContext): Promise<void> {
    dbOf(ctx);
    const filter = ctx.query.get('filter');
    if (filter === '_doc_ids' || filter === '_selector') checkJsonType(ctx);
    const bytes = await readBody(ctx);
    // An empty POST body is fine (no doc_ids); anything else must be a JSON object.
    if (bytes.length === 0) return serve(ctx, new JsonObject());
    const body = parseBody(bytes);
    if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    return serve(ctx, body);
  },
};

async function serve(ctx: RequestContext, body: JsonObject | undefined): Promise<void> {
  const db = dbOf(ctx);
  const request = await parseRequest(ctx.query, db, ctx.req.headers['last-event-id']);
  const filter = await feedFilter(ctx, db, body);
  try {
    request.options = { ...request.options, ...filter.options, viewer: viewerOf(ctx) };
    request.lookup = filter.lookup;
    // A reader of an access-enabled database: their rows only, with their own last_seq and pending.
    const reader = ctx.access?.reader;
    if (reader !== undefined) {
      request.options.access = { reader, removed: ctx.query.get('removed') === 'true' };
      request.lookup = false;
    }
    // A reader's feed is their own: no ETag shared with other callers (nor where a read rule shows them less).
    if (request.feed === 'normal') {
      const shared = reader === undefined && !db.hasReadRule;
      return await normal(ctx, db, request, shared ? await etagOf(db) : undefined);
    }
    if (request.feed === 'longpoll') return await longpoll(ctx, db, request);
    return await continuous(ctx, db, request);
  } finally {
    filter.dispose();
  }
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
  let seqInterval: number | undefined;
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
      case 'seq_interval':
        seqInterval = integerParam('seq_interval', value, 1);
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
  };
  return {
    feed,
    options,
    timeout: heartbeat !== undefined ? Infinity : Math.min(DEFAULT_TIMEOUT, timeout ?? DEFAULT_TIMEOUT),
    heartbeat,
    lookup: false,
    seqInterval,
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

/**
 * `now`, an integer, or a CouchDB 2+/3 style `N-opaque` sequence. Divan's sequences are integers,
 * so an opaque one was made by another server: it starts the feed over, as CouchDB rewinds to 0 a
 * sequence whose database uuid is not its own (fabric_rpc:calculate_start_seq). A sequence past
 * the end reads as the end, so `last_seq` never names a sequence this database has not reached
 * (a client resuming from it would skip the writes in between).
 */
async function parseSince(raw: string, descending: boolean, db: Database): Promise<number> {
  // Descending feeds start from the newest change whatever since says.
  if (raw === 'now') return descending ? 0 : db.updateSeq();
  const match = /^(\d+)(-.+)?$/.exec(raw);
  if (match === null) throw new CouchError('bad_request', "Malformed sequence supplied in 'since' parameter.");
  if (match[2] !== undefined) return 0;
  const since = Number(match[1]);
  return since === 0 ? 0 : Math.min(since, await db.updateSeq());
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
  if (!options.descending) return countChangesOf(db, options, lastSeq);
  const all = await countChangesOf(db, options, options.since);
  return returned === 0 ? all : all - (await countChangesOf(db, options, lastSeq - 1));
}

/**
 * The rows after `since`, then `last_seq` and `pending`, as text pieces (rows, tail).
 *
 * A limit cut looks at the one change after the last row, as CouchDB's coordinator does: when
 * that change passes the filter, `last_seq` is the last row's; when it does not, `last_seq` is
 * that change's (and with `limit=0`, `pending` counts after it). `_doc_ids`/`_design` lookups
 * answer the database's sequence and count the changes they did not visit as pending.
 */
function feed(
  ctx: RequestContext,
  db: Database,
  request: FeedRequest,
): { rows: AsyncIterable<string>; tail: () => Promise<string> } {
  const { options } = request;
  const limit = options.limit ?? Infinity;
  let lastSeq = options.since;
  let count = 0;
  /** The change looked at past the limit: undefined when the scan reached the end first. */
  let past: { seq: number; passes: boolean } | undefined;
  let failed = false;
  // The sequence before the scan starts: every change up to it is one the scan meets (a document
  // changed meanwhile moves past it). Read after the scan, a write landing between the scan's end
  // and that read would be skipped by the next `since` (a continuous replication lost it).
  // A reader's feed ends at the last row it reached: the database's sequence would tell of others' writes.
  const seqBefore = options.descending || options.access !== undefined ? undefined : db.updateSeq();
  seqBefore?.catch(() => undefined);
  const rows = (async function* () {
    try {
      for await (const event of changeEvents(db, options)) {
        if (count >= limit) {
          past = { seq: event.seq, passes: event.json !== undefined };
          return;
        }
        if (event.json === undefined) continue;
        lastSeq = event.seq;
        const remaining = (options.limit ?? NO_LIMIT) - count;
        count++;
        yield withSeqInterval(event as { seq: number; json: string }, remaining, request.seqInterval);
      }
    } catch (err) {
      // Before the first row this is still a clean error response; after it, the rows sent stand
      // and the feed ends at the last of them (the next request meets the error again).
      if (count === 0) throw err;
      failed = true;
      ctx.server.log?.(`_changes of ${db.name} stopped after seq ${lastSeq}: ${(err as Error).message}`);
    }
  })();
  const tail = async () => {
    if (failed) {
      const pending = await pendingAfter(db, options, lastSeq, count);
      return `],"last_seq":${lastSeq},"pending":${pending}}`;
    }
    if (request.lookup && seqBefore !== undefined) {
      const seq = Math.max(lastSeq, await seqBefore);
      const pending = Math.max(0, (await db.countChanges(options.since)) - count);
      return `],"last_seq":${seq},"pending":${pending}}`;
    }
    if (past === undefined && count < limit) {
      // The scan reached the end: last_seq is the database's sequence as the scan began.
      if (seqBefore !== undefined) lastSeq = Math.max(lastSeq, await seqBefore);
      return `],"last_seq":${lastSeq},"pending":0}`;
    }
    let pendingFrom = lastSeq;
    if (past !== undefined && !past.passes) {
      lastSeq = past.seq;
      if (count === 0) pendingFrom = past.seq;
    }
    return `],"last_seq":${lastSeq},"pending":${await pendingAfter(db, options, pendingFrom, count)}}`;
  };
  return { rows, tail };
}

async function normal(ctx: RequestContext, db: Database, request: FeedRequest, etag?: string): Promise<void> {
  if (etag !== undefined && ifNoneMatch(ctx, etag)) return sendText(ctx, 304, '', { ETag: etag });
  const { rows, tail } = feed(ctx, db, request);
  await streamRows(ctx, 200, '{"results":[', rows, tail, etag === undefined ? undefined : { ETag: etag });
}

/** A row's text with `"seq":null` unless the remaining limit is a multiple of `seq_interval`. */
function withSeqInterval(row: { seq: number; json: string }, remaining: number, interval: number | undefined): string {
  if (interval === undefined || remaining % interval === 0) return row.json;
  return `{"seq":null${row.json.slice(`{"seq":${row.seq}`.length)}`;
}

/** Waits for the next change after `since` (or the timeout), then answers as a normal feed. */
async function longpoll(ctx: RequestContext, db: Database, request: FeedRequest): Promise<void> {
  const { options } = request;
  if (options.descending || options.limit === 0 || (await hasChanges(db, options))) return normal(ctx, db, request);
  if (request.heartbeat === undefined) {
    await waitForChange(ctx, db, options, request.timeout);
    return normal(ctx, db, request);
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
  const { rows, tail } = feed(ctx, db, request);
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
  return waitForFeed(
    ctx,
    (done) =>
      db.onChange(() => {
        hasChanges(db, options).then(
          (has) => {
            if (has) done();
          },
          () => done(),
        );
      }),
    timeout,
  );
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
  let returned = 0;
  const deadline = Date.now() + request.timeout;
  const beat = events ? 'event: heartbeat\ndata: \n\n' : '\n';
  const heartbeat = request.heartbeat === undefined ? undefined : setInterval(() => res.write(beat), request.heartbeat);
  try {
    while (!res.destroyed && left > 0) {
      for await (const row of changeRows(db, { ...options, since, limit: left === Infinity ? undefined : left })) {
        const json = withSeqInterval(row, (options.limit ?? NO_LIMIT) - returned++, request.seqInterval);
        res.write(events ? `data: ${json}\nid: ${row.seq}\n\n` : `${json}\n`);
        since = row.seq;
        left--;
      }
      if (left <= 0 || options.descending) break;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await waitForChange(ctx, db, { ...options, since }, remaining);
      if (Date.now() >= deadline && !(await hasChanges(db, { ...options, since }))) break;
    }
  } catch (err) {
    // A filter that fails: a clean error while nothing was sent, else the feed ends at the last row.
    if (!res.headersSent) throw err;
    ctx.server.log?.(`_changes of ${db.name} stopped after seq ${since}: ${(err as Error).message}`);
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
  const lastSeq =
    cut || options.descending || options.access !== undefined ? since : Math.max(since, await db.updateSeq());
  const pending = cut ? await pendingAfter(db, options, lastSeq, returned) : 0;
  res.end(`{"last_seq":${lastSeq},"pending":${pending}}\n`);
}
