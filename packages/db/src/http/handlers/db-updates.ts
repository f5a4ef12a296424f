/**
 * `GET /_db_updates`: the server's database events (created, updated, deleted), each database's
 * latest of each type, as CouchDB's global_changes_httpd answers them: normal, longpoll,
 * continuous and eventsource feeds; `since`, `descending`, `limit`, `heartbeat`, `timeout`.
 * Server admins only, checked before anything else. Events come from storage (server/db-updates.ts),
 * so a feed on one node shows every node's databases.
 */
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import type { DbEvent } from '../../storage/records.js';
import type { RequestContext } from '../context.js';
import { waitForFeed } from '../feed-wait.js';
import { opaqueEtag, sendBytes, ifNoneMatch } from '../respond.js';

/** CouchDB's `[chttpd] changes_timeout` and heartbeat default. */
const DEFAULT_TIMEOUT = 60_000;

type Feed = 'normal' | 'longpoll' | 'continuous' | 'eventsource';

interface DbUpdatesRequest {
  feed: Feed;
  since: number;
  descending: boolean;
  limit: number | undefined;
  heartbeat: number | undefined;
  /** How long a feed waits for events; Infinity with a heartbeat. */
  timeout: number;
}

export const dbUpdates = {
  async index(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const request = await parseRequest(ctx);
    if (request.feed === 'normal') return normal(ctx, request);
    if (request.feed === 'longpoll') return longpoll(ctx, request);
    return continuous(ctx, request);
  },
};

/** A non-negative integer, as global_changes_httpd's to_non_neg_int (its error: `invalid_integer`). */
function nonNegative(value: string): number {
  if (!/^[+-]?\d+$/.test(value) || Number(value) < 0) throw new CouchError('bad_request', 'invalid_integer');
  return Number(value);
}

async function parseRequest(ctx: RequestContext): Promise<DbUpdatesRequest> {
  let feed = 'normal';
  let sinceRaw = '0';
  let descending = false;
  let limit: number | undefined;
  let heartbeat: number | undefined;
  let timeout: number | undefined;
  for (const [key, value] of ctx.query) {
    if (key === 'feed') feed = value;
    else if (key === 'descending') descending = value === 'true';
    else if (key === 'since') sinceRaw = value;
    else if (key === 'limit') limit = nonNegative(value);
    else if (key === 'heartbeat' && value !== 'false')
      heartbeat = value === 'true' ? DEFAULT_TIMEOUT : nonNegative(value);
    else if (key === 'timeout') timeout = nonNegative(value);
  }
  if (feed !== 'normal' && feed !== 'longpoll' && feed !== 'continuous' && feed !== 'eventsource') {
    throw new CouchError('bad_request', 'Supported `feed` types: normal, continuous, longpoll, eventsource');
  }
  // An EventSource reconnecting resumes from the last id it saw.
  const lastEventId = ctx.req.headers['last-event-id'];
  if (feed === 'eventsource' && typeof lastEventId === 'string') sinceRaw = lastEventId;
  return {
    feed,
    since: await parseSince(ctx, sinceRaw, descending),
    descending,
    limit,
    heartbeat: heartbeat === 0 ? undefined : heartbeat,
    timeout: heartbeat !== undefined ? Infinity : Math.min(DEFAULT_TIMEOUT, timeout ?? DEFAULT_TIMEOUT),
  };
}

/** `now`, an integer, or an `N-opaque` sequence as CouchDB 2+ writes them (the number counts). */
async function parseSince(ctx: RequestContext, raw: string, descending: boolean): Promise<number> {
  if (raw === 'now') return descending ? 0 : ctx.server.dbUpdates.seq();
  const match = /^(\d+)(-.+)?$/.exec(raw);
  if (match === null) throw new CouchError('bad_request', "Malformed sequence supplied in 'since' parameter.");
  return Number(match[1]);
}

function eventJson(event: DbEvent): string {
  return JSON.stringify({ db_name: event.dbName, type: event.type, seq: event.seq });
}

/** The events after `since` up to the limit, and the sequence the answer ends at. */
async function read(ctx: RequestContext, request: DbUpdatesRequest, since: number, limit = request.limit) {
  const events: DbEvent[] = [];
  if (limit !== 0) {
    for await (const event of ctx.server.dbUpdates.events(since, request.descending)) {
      events.push(event);
      if (events.length === limit) break;
    }
  }
  const last = events[events.length - 1]?.seq;
  const cut = limit !== undefined && events.length >= limit;
  const lastSeq =
    request.descending || cut ? (last ?? since) : Math.max(last ?? since, await ctx.server.dbUpdates.seq());
  return { events, lastSeq };
}

function normalBody(events: readonly DbEvent[], lastSeq: number): string {
  return `{"results":[\n${events.map(eventJson).join(',\r\n')}\n],\n"last_seq":${lastSeq}}\n`;
}

async function normal(ctx: RequestContext, request: DbUpdatesRequest): Promise<void> {
  const etag = opaqueEtag('_db_updates', ctx.server.nodeId, await ctx.server.dbUpdates.seq());
  if (ifNoneMatch(ctx, etag)) return sendBytes(ctx, 304, '', { ETag: etag });
  const { events, lastSeq } = await read(ctx, request, request.since);
  sendBytes(ctx, 200, normalBody(events, lastSeq), { ETag: etag });
}

async function hasEvents(ctx: RequestContext, since: number): Promise<boolean> {
  return (await ctx.server.dbUpdates.seq()) > since;
}

/** Resolves at the first event after `since`, at the timeout, or when the client leaves. */
function waitForEvent(ctx: RequestContext, since: number, timeout: number): Promise<void> {
  return waitForFeed(
    ctx,
    (done) =>
      ctx.server.dbUpdates.onEvent((seq) => {
        if (seq > since) done();
      }),
    timeout,
  );
}

function startStream(ctx: RequestContext, eventSource: boolean): void {
  const { res } = ctx;
  res.statusCode = 200;
  res.setHeader('Content-Type', eventSource ? 'text/event-stream' : 'application/json');
  res.setHeader('Cache-Control', eventSource ? 'no-cache' : 'must-revalidate');
}

/** Waits for an event after `since` (or the timeout), then answers as the normal feed does. */
async function longpoll(ctx: RequestContext, request: DbUpdatesRequest): Promise<void> {
  const { res } = ctx;
  const ready = request.descending || request.limit === 0 || (await hasEvents(ctx, request.since));
  if (ready) {
    const { events, lastSeq } = await read(ctx, request, request.since);
    return sendBytes(ctx, 200, normalBody(events, lastSeq));
  }
  if (request.heartbeat === undefined) {
    await waitForEvent(ctx, request.since, request.timeout);
    if (res.destroyed) return;
    const { events, lastSeq } = await read(ctx, request, request.since);
    return sendBytes(ctx, 200, normalBody(events, lastSeq));
  }
  // With a heartbeat the answer starts at once, a newline now and then while it waits.
  startStream(ctx, false);
  res.write('{"results":[\n');
  const timer = setInterval(() => res.write('\n'), request.heartbeat);
  try {
    await waitForEvent(ctx, request.since, Infinity);
  } finally {
    clearInterval(timer);
  }
  if (res.destroyed) return;
  const { events, lastSeq } = await read(ctx, request, request.since);
  res.end(`${events.map(eventJson).join(',\r\n')}\n],\n"last_seq":${lastSeq}}\n`);
}

/**
 * One event per line as databases change, until the timeout or the limit, then `last_seq`;
 * `eventsource` is the same feed as server-sent events (`data:`/`id:` per event, no last line).
 */
async function continuous(ctx: RequestContext, request: DbUpdatesRequest): Promise<void> {
  const { res } = ctx;
  const eventSource = request.feed === 'eventsource';
  startStream(ctx, eventSource);
  if (ctx.method === 'HEAD') {
    res.end();
    return;
  }
  res.flushHeaders();
  let since = request.since;
  let left = request.limit ?? Infinity;
  const deadline = Date.now() + request.timeout;
  const beat = eventSource ? 'event: heartbeat\ndata: \n\n' : '\n';
  const heartbeat = request.heartbeat === undefined ? undefined : setInterval(() => res.write(beat), request.heartbeat);
  try {
    while (!res.destroyed && left > 0) {
      const { events } = await read(ctx, request, since, left === Infinity ? undefined : left);
      for (const event of events) {
        const json = eventJson(event);
        res.write(eventSource ? `data: ${json}\nid: ${event.seq}\n\n` : `${json}\n`);
        since = event.seq;
        left--;
      }
      if (left <= 0 || request.descending) break;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await waitForEvent(ctx, since, remaining);
      if (Date.now() >= deadline && !(await hasEvents(ctx, since))) break;
    }
  } finally {
    if (heartbeat !== undefined) clearInterval(heartbeat);
  }
  if (res.destroyed) return;
  if (eventSource) {
    res.end();
    return;
  }
  const lastSeq = left <= 0 || request.descending ? since : Math.max(since, await ctx.server.dbUpdates.seq());
  res.end(`{"last_seq":${lastSeq}}\n`);
}
