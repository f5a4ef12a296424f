import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The ICU root collator CouchDB uses for view-key strings (`ucol_open("")`, tertiary strength,
 * normalization off), reached through the `native/icu-collate` addon, which calls the ICU built
 * into the running node binary. There is deliberately no JavaScript fallback: `Intl.Collator`
 * normalizes, follows the process locale for 'und', and has no sort keys, so it would order an
 * index differently without anyone noticing. Loading fails with an `IcuCollatorError` instead.
 */
export interface IcuCollator {
  /** ICU sort key of `s` (tertiary, no trailing 0x00; never contains 0x00). Lone surrogates count as U+FFFD. */
  sortKey(s: string): Buffer;
  /** Writes the sort key at `target[offset..]`; returns its length, or `-length` (writing nothing) if it does not fit. */
  sortKeyInto(s: string, target: Uint8Array, offset: number): number;
  /** ICU comparison of two strings: -1, 0 or 1. */
  compare(a: string, b: string): -1 | 0 | 1;
  /** Collator version (`ucol_getVersion`), e.g. "153.136": sort keys may change when it does. */
  version(): string;
  /** ICU library version (`u_getVersion`), e.g. "78.2". */
  icuVersion(): string;
  /** UCA version of the root table (`ucol_getUCAVersion`), e.g. "17.0". */
  ucaVersion(): string;
  /** Unicode version that assigned a code point (`u_charAge`), "0.0" when unassigned here. */
  charAge(codePoint: number): string;
}

/** What an index records so it can be rebuilt when the collation underneath it changes. */
export interface CollatorVersion {
  /** `ucol_getVersion` of the root collator. */
  collator: string;
  /** ICU library version. */
  icu: string;
  /** UCA (Unicode Collation Algorithm) version. */
  uca: string;
}

export class IcuCollatorError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IcuCollatorError';
  }
}

const ADDON_DIR = join('native', 'icu-collate');
const ADDON_FILE = join(ADDON_DIR, 'build', 'Release', 'icu_collate.node');
const BUILD_HINT =
  'build it with `npx node-gyp rebuild` in packages/db/native/icu-collate (npm install in packages/db does this)';

let loaded: IcuCollator | undefined;

/**
 * The collator, loaded on first call. Throws `IcuCollatorError` when the addon is missing, the
 * node binary has no usable ICU, or a self-check of CouchDB's documented order fails. Call it
 * once at startup to fail early rather than at the first index build.
 */
export function icuCollator(): IcuCollator {
  return (loaded ??= load());
}

/** The versions to store in an index header; compare with `sameCollation` on open. */
export function collatorVersion(): CollatorVersion {
  const c = icuCollator();
  return { collator: c.version(), icu: c.icuVersion(), uca: c.ucaVersion() };
}

/** True when an index built under `recorded` still orders keys as the running collator does. */
export function sameCollation(recorded: CollatorVersion): boolean {
  // The collator version covers the root data and the algorithm; the ICU major guards against
  // sort-key format changes, which ICU only promises stability for within one version.
  const now = collatorVersion();
  return recorded.collator === now.collator && major(recorded.icu) === major(now.icu);
}

function major(version: string): string {
  return version.split('.')[0]!;
}

/**
 * The package root holds `native/icu-collate`; compiled code runs from `dist/src/collation`
 * and sources (tsx) from `src/collation`, so walk up rather than assume a depth.
 */
function addonPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, ADDON_DIR, 'binding.gyp'))) return join(dir, ADDON_FILE);
    const parent = dirname(dir);
    if (parent === dir)
      throw new IcuCollatorError(
        `ICU collation addon sources (${ADDON_DIR}) not found above ${fileURLToPath(import.meta.url)}`,
      );
    dir = parent;
  }
}

function load(): IcuCollator {
  const path = addonPath();
  if (!existsSync(path)) throw new IcuCollatorError(`ICU collation addon not built: ${path} is missing; ${BUILD_HINT}`);
  let addon: IcuCollator;
  try {
    addon = createRequire(import.meta.url)(path) as IcuCollator;
  } catch (error) {
    throw new IcuCollatorError(
      `ICU collation addon failed to load from ${path}: ${(error as Error).message}; ${BUILD_HINT}`,
      { cause: error },
    );
  }
  selfCheck(addon);
  return addon;
}

/** CouchDB's documented string order and ignorables, checked once so a broken ICU cannot go unnoticed. */
function selfCheck(c: IcuCollator): void {
  const running = process.versions.icu;
  if (running === undefined || major(c.icuVersion()) !== major(running)) {
    throw new IcuCollatorError(`ICU collation addon reports ICU ${c.icuVersion()}, node has ${String(running)}`);
  }
  const ordered = [
    '',
    ' ',
    '_',
    '-',
    '~',
    '$',
    '0',
    '9',
    'a',
    'A',
    'aa',
    'b',
    'B',
    'ba',
    'bb',
    'é',
    'z',
    'Z',
    'привет',
  ];
  for (let i = 1; i < ordered.length; i++) {
    const [a, b] = [ordered[i - 1]!, ordered[i]!];
    if (c.compare(a, b) >= 0 || Buffer.compare(c.sortKey(a), c.sortKey(b)) >= 0) {
      throw new IcuCollatorError(
        `ICU collation self-check failed: expected ${JSON.stringify(a)} < ${JSON.stringify(b)}`,
      );
    }
  }
  if (c.compare('a', 'a\u200B') !== 0 || !c.sortKey('a').equals(c.sortKey('a\u200B'))) {
    throw new IcuCollatorError('ICU collation self-check failed: "a" and "a\\u200B" must collate equal');
  }
  // Normalization off (CouchDB's setting): a non-FCD mark sequence is not equal to its reordering.
  if (c.compare('a\u0301\u0327', 'a\u0327\u0301') === 0) {
    throw new IcuCollatorError('ICU collation self-check failed: normalization must be off, as in CouchDB');
  }
}
