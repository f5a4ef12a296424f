/**
 * Gzip streams byte for byte as CouchDB stores compressible attachments: stock zlib's deflate
 * (CouchDB's Erlang uses the system zlib), through the `native/icu-collate` build's
 * `stock_gzip` addon, which links the stock zlib statically. An attachment's digest is the md5
 * of these bytes and the document's revision id hashes that digest, so node's own zlib
 * (Chromium's fork, other matches from about 100 bytes up) would give other revision ids than
 * CouchDB for the same write. There is deliberately no node:zlib fallback: loading fails loudly
 * instead, as for the ICU collator.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';

interface StockGzipAddon {
  open(level: number): object;
  push(stream: object, bytes: Uint8Array): Buffer;
  finish(stream: object): Buffer;
  pushAsync(stream: object, bytes: Uint8Array): Promise<Buffer>;
  finishAsync(stream: object): Promise<Buffer>;
  zlibVersion(): string;
}

export class StockGzipError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StockGzipError';
  }
}

const ADDON_DIR = join('native', 'icu-collate');
const ADDON_FILE = join(ADDON_DIR, 'build', 'Release', 'stock_gzip.node');
const BUILD_HINT =
  'build it with `npm run build:native` in packages/db (npm install does this; it needs libz.a, Debian: zlib1g-dev)';
let loaded: StockGzipAddon | undefined;

function addon(): StockGzipAddon {
  return (loaded ??= load());
}

/** The linked zlib's version ("1.2.13"); loads the addon, so a missing build fails here. */
export function stockZlibVersion(): string {
  return addon().zlibVersion();
}

/**
 * The gzip stream of `source` (deflate at `level` 1..9, windowBits 15 + 16, memLevel 8, default
 * strategy: mtime 0 in the header), as CouchDB's couch_stream writes it. The source's errors
 * come out of the returned iterable. Each piece is compressed on the threadpool while the reader
 * stores the piece before it and the source reads the next: deflate at level 8 is slower than
 * the rest of an upload, and on the main thread it would add to it instead of running beside it.
 */
export async function* stockGzip(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  level: number,
): AsyncGenerator<Buffer> {
  const gzip = addon();
  const stream = gzip.open(level);
  let inFlight: Promise<Buffer> | undefined;
  try {
    for await (const chunk of source) {
      const ready = inFlight === undefined ? undefined : await inFlight;
      inFlight = gzip.pushAsync(stream, chunk);
      if (ready !== undefined && ready.length > 0) yield ready;
    }
    const ready = inFlight === undefined ? undefined : await inFlight;
    inFlight = undefined;
    if (ready !== undefined && ready.length > 0) yield ready;
    yield await gzip.finishAsync(stream);
  } finally {
    // Stopped early (the source failed, or the reader did): the job still running settles unseen.
    inFlight?.catch(() => {});
  }
}

/** The gzip stream of `bytes`, in one piece. */
export function stockGzipSync(bytes: Uint8Array, level: number): Buffer {
  const gzip = addon();
  const stream = gzip.open(level);
  return Buffer.concat([gzip.push(stream, bytes), gzip.finish(stream)]);
}

/** The package root holds `native/icu-collate`: walk up from dist/src or src (tsx). */
function addonPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, ADDON_DIR, 'binding.gyp'))) return join(dir, ADDON_FILE);
    const parent = dirname(dir);
    if (parent === dir) throw new StockGzipError(`native addon sources (${ADDON_DIR}) not found above ${dir}`);
    dir = parent;
  }
}

function load(): StockGzipAddon {
  const path = addonPath();
  if (!existsSync(path)) throw new StockGzipError(`stock zlib addon not built: ${path} is missing; ${BUILD_HINT}`);
  let gzip: StockGzipAddon;
  try {
    gzip = createRequire(import.meta.url)(path) as StockGzipAddon;
  } catch (error) {
    throw new StockGzipError(
      `stock zlib addon failed to load from ${path}: ${(error as Error).message}; ${BUILD_HINT}`,
      {
        cause: error,
      },
    );
  }
  selfCheck(gzip);
  return gzip;
}

/**
 * CouchDB 3.5's stored stream for a recorded upload (text/plain "This is a base64 encoded
 * text", digest md5-qUUYqS41RhwF0TrCsTAxFg==, 47 bytes): a zlib that is not the stock one (node's
 * own, bound by mistake) gives 49 bytes and is refused here rather than changing revision ids.
 */
function selfCheck(gzip: StockGzipAddon): void {
  const stream = gzip.open(8);
  const out = Buffer.concat([gzip.push(stream, Buffer.from('This is a base64 encoded text')), gzip.finish(stream)]);
  const digest = createHash('md5').update(out).digest('base64');
  if (digest !== 'qUUYqS41RhwF0TrCsTAxFg==') {
    throw new StockGzipError(
      `stock zlib self-check failed: zlib ${gzip.zlibVersion()} gave ${out.length} bytes, md5 ${digest}; ` +
        "CouchDB's stock zlib gives 47 bytes, md5 qUUYqS41RhwF0TrCsTAxFg==",
    );
  }
}
