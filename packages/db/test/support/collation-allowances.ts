/**
 * The CouchDB collation fixture (test/fixtures/couchdb-collation-order.json, recorded
 * from CouchDB 3.5.0 with libicu 72.1) and the three documented classes of strings where node's
 * newer ICU may legitimately order differently (see the fixture's README and
 * test/collation-fixture.test.ts, which this mirrors for end-to-end tests).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { icuCollator, isFcd } from '../../src/collation/index.js';

/** In the repository (this file runs from packages/db/dist/test/support). */
export const FIXTURE_PATH = fileURLToPath(
  new URL('../../../test/fixtures/couchdb-collation-order.json', import.meta.url),
);

export interface FixtureRow {
  id: string;
  key: string;
}
export interface FixtureLookup {
  key: string;
  rows?: FixtureRow[];
  exclusiveSelfRange?: number;
}
export interface FixtureSection {
  strings: FixtureRow[];
  groupCounts: number[];
  ties: FixtureRow[];
  tieGroups: { key: string; value: number }[];
  mixedText: string;
  keyLookups: FixtureLookup[];
}
export interface CollationFixture {
  server: { library_version: string; collation_algorithm_version: string };
  allDocsIds: string[];
  allDocsUnicode: string[];
  icu: FixtureSection;
  raw: FixtureSection;
  rawddoc: { sameOrderAsIcu: boolean };
}

export function loadFixture(): CollationFixture {
  return JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as CollationFixture;
}

export type Excuse = 'newer-than-unicode-15.0' | 'root-order-changed' | 'non-fcd';

/** The 12 code points whose root-collation order changed between ICU 72 and 78. */
const ROOT_ORDER_CHANGED = new Set([
  0x2018, 0x2019, 0x201a, 0x201b, 0x20a7, 0x20a8, 0x2180, 0x2181, 0x2182, 0x2186, 0x2187, 0x2188,
]);

/** Why a string may sit elsewhere than in the fixture's ICU order (empty: it may not). */
export function excuses(s: string): Excuse[] {
  const out: Excuse[] = [];
  const icu = icuCollator();
  const cps = [...s].map((c) => c.codePointAt(0)!);
  if (
    cps.some((cp) => {
      const [major, minor] = icu.charAge(cp).split('.').map(Number);
      return major! > 15 || (major === 15 && minor! > 0);
    })
  ) {
    out.push('newer-than-unicode-15.0');
  }
  if (cps.some((cp) => ROOT_ORDER_CHANGED.has(cp))) out.push('root-order-changed');
  if (!isFcd(s)) out.push('non-fcd');
  return out;
}

export const excused = (s: string): boolean => excuses(s).length > 0;

export const hex = (s: string): string =>
  [...s].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

/** Positions (into `seq`) of a longest increasing subsequence: the elements that did not move. */
export function unmoved(seq: readonly number[]): Set<number> {
  const tails: number[] = [];
  const tailAt: number[] = [];
  const prev: number[] = [];
  for (let k = 0; k < seq.length; k++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! < seq[k]!) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = seq[k]!;
    tailAt[lo] = k;
    prev[k] = lo > 0 ? tailAt[lo - 1]! : -1;
  }
  const keep = new Set<number>();
  for (let k = tails.length ? tailAt[tails.length - 1]! : -1; k >= 0; k = prev[k]!) keep.add(seq[k]!);
  return keep;
}
