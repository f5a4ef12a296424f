/**
 * A folder of static files served from memory (Fauxton's build: a few MB): each file read once,
 * its gzip read from `name.gz` beside it or made once, its ETag a hash of its bytes. Only files
 * found by walking the folder, or added from memory (`add`), are served, so no request path can
 * name anything outside it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface StaticFile {
  readonly type: string;
  readonly etag: string;
  /** A file whose name carries its content hash (`bundle.bdfacd9b….js`): cacheable for good. */
  readonly fingerprinted: boolean;
  readonly bytes: Buffer;
  /** Set when compressing pays (text types): the gzip of `bytes`. */
  readonly gzip: Buffer | undefined;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
  '.txt': 'text/plain; charset=utf-8',
};
/** Already compressed formats gain nothing from gzip. */
const COMPRESSED = new Set(['.png', '.gif', '.woff', '.woff2']);
const FINGERPRINT = /\.[0-9a-f]{16,}\.[a-z0-9]+$/;

export class StaticFiles {
  readonly #files = new Map<string, StaticFile>();

  /** Every file under `root` but dot-files, keyed by its path relative to `root` with `/`. */
  constructor(root: string) {
    const walk = (dir: string, prefix: string): void => {
      for (const name of readdirSync(dir)) {
        if (name.startsWith('.') || name.endsWith('.gz')) continue;
        const full = join(dir, name);
        if (statSync(full).isDirectory()) walk(full, `${prefix}${name}/`);
        else this.#files.set(`${prefix}${name}`, load(full, name));
      }
    };
    walk(root, '');
  }

  /** Serves `file` at `path` (in place of the folder's file of that path, if any). */
  add(path: string, file: StaticFile): void {
    this.#files.set(path, file);
  }

  get(path: string): StaticFile | undefined {
    return this.#files.get(path);
  }

  get size(): number {
    return this.#files.size;
  }
}

function load(full: string, name: string): StaticFile {
  const bytes = readFileSync(full);
  // A gzip made ahead (`x.js.gz` beside `x.js`) is used as it is; otherwise made now.
  return staticFile(name, bytes, existsSync(`${full}.gz`) ? readFileSync(`${full}.gz`) : undefined);
}

/** A file served from these bytes (its type from `name`), with `gzip` or a gzip made now. */
export function staticFile(name: string, bytes: Buffer, gzip?: Buffer): StaticFile {
  const ext = extname(name).toLowerCase();
  const compressed = COMPRESSED.has(ext) ? undefined : (gzip ?? gzipSync(bytes));
  return {
    type: TYPES[ext] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
    fingerprinted: FINGERPRINT.test(name),
    bytes,
    gzip: compressed !== undefined && compressed.length < bytes.length ? compressed : undefined,
  };
}
