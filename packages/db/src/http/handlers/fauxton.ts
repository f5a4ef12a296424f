/**
 * `/_utils/`: Fauxton, CouchDB's web interface, from the `fauxton` npm package's build
 * (fetched at install into packages/db/fauxton by scripts/fetch-fauxton.mjs), served as fetched.
 * Public, as in CouchDB: the page itself logs in through the API.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CouchError } from '../../errors.js';
import { acceptsGzip } from '../accept-encoding.js';
import type { RequestContext } from '../context.js';
import { StaticFiles } from '../static-files.js';
import { UTILS_CSP } from '../../server/config.js';

/** dist/src/http/handlers/ → packages/db/fauxton/ */
const FAUXTON_DIR = fileURLToPath(new URL('../../../../fauxton/', import.meta.url));

const YEAR = 365 * 24 * 3600;

let files: StaticFiles | undefined;

/** Loaded on first use, so a server that never serves Fauxton never reads it. */
function fauxtonFiles(): StaticFiles {
  if (files !== undefined) return files;
  if (!existsSync(FAUXTON_DIR)) {
    throw new CouchError(
      'not_found',
      'Fauxton is not installed: `npm ci` fetches it (or run `node packages/db/scripts/fetch-fauxton.mjs`).',
    );
  }
  files = new StaticFiles(FAUXTON_DIR);
  return files;
}

export const fauxton = {
  /**
   * `/_utils/` is the page; `/_utils` redirects there, as CouchDB does (the router reads both
   * paths as one, so the trailing slash is told apart here).
   */
  index(ctx: RequestContext): void {
    if (ctx.rawPath.endsWith('/')) {
      fauxton.file(ctx);
      return;
    }
    const search = ctx.req.url!.slice(ctx.rawPath.length);
    ctx.res.statusCode = 301;
    ctx.res.setHeader('Location', `${ctx.rawPath}/${search}`);
    ctx.res.setHeader('Content-Length', 0);
    ctx.res.end();
  },

  file(ctx: RequestContext): void {
    const rest = ctx.params.rest === undefined ? '' : String(ctx.params.rest);
    const file = fauxtonFiles().get(rest === '' ? 'index.html' : rest);
    if (file === undefined) throw new CouchError('not_found', 'Document is missing attachment');
    const { res } = ctx;
    res.setHeader('Content-Type', file.type);
    res.setHeader('Content-Security-Policy', UTILS_CSP);
    res.setHeader('ETag', file.etag);
    res.setHeader(
      'Cache-Control',
      file.fingerprinted ? `public, max-age=${YEAR}, immutable` : 'private, must-revalidate',
    );
    if (file.gzip !== undefined) res.setHeader('Vary', 'Accept-Encoding');
    const ifNoneMatch = ctx.req.headers['if-none-match'];
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === file.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    const gzip = file.gzip !== undefined && acceptsGzip(ctx.req.headers['accept-encoding']);
    const body = gzip ? file.gzip! : file.bytes;
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.statusCode = 200;
    res.setHeader('Content-Length', body.length);
    res.end(ctx.method === 'HEAD' ? undefined : body);
  },
};
