/**
 * `_explain`'s `index_candidates` when a text index runs the query, in CouchDB 3.5's form
 * (mango_cursor:extract_candidate_indexes; the hints: ./selector-hints.ts). Every index
 * but the chosen one, in one of CouchDB's stages, each stage with its reason and ranking:
 *
 * - `is_partial`: a partial index `use_index` does not name;
 * - `scope_mismatch`: a partitioned index for a global query, or a global one for a partition's;
 * - not usable: a JSON index's own reason (the JSON planner's, ./planner.ts), a text index's
 *   `empty_selector` or `field_mismatch`, `_all_docs`'s `sort_order_mismatch`;
 * - `excluded_by_user`: usable, but `use_index` names another;
 * - `unfavored_type`: usable, of another kind than the index that runs it (`_all_docs`, a nouveau
 *   index when a text one runs it).
 *
 * Rankings as CouchDB counts them: the last stage 1, each earlier stage one more than the next
 * when the next has indexes. The list is in CouchDB's order (its map of index records folded
 * into a list: design documents and names descending, `_all_docs` last).
 */
import type { Database } from '../documents/database.js';
import { JsonObject } from '../json/index.js';
import type { FindRequest } from './find-request.js';
import { jsonIndexes } from './indexes.js';
import { ALL_DOCS_INDEX, describeIndex } from './json-index.js';
import type { Plan } from './planner.js';
import { selectorToJson } from './selector.js';
import { describeTextIndex, type TextIndex, textIndexes } from './text-index.js';

type Stage = 'unfavored' | 'excluded' | 'notUsable' | 'scope' | 'partial';

interface Entry {
  index: JsonObject;
  /** Ordering key: design document and name (undefined: `_all_docs`). */
  key: [string, string] | undefined;
  stage: Stage;
  usable: boolean;
  reason: string;
  covering: boolean | null;
}

/** Stages from the last (ranked 1) to the first. */
const STAGES: readonly Stage[] = ['unfavored', 'excluded', 'notUsable', 'scope', 'partial'];

export interface TextExplainInput {
  chosen: TextIndex;
  /** The JSON planner's analysis of the same request (its candidates' reasons). */
  json: Plan | undefined;
  /** Whether a text index is usable for this selector (./text-find.ts). */
  usable: (index: TextIndex) => boolean;
  /** Whether it has a partial filter. */
  partial: (index: TextIndex) => boolean;
  /** Whether `use_index` names it. */
  named: (index: { ddoc: string; name: string }) => boolean;
}

export async function textIndexCandidates(
  db: Database,
  request: FindRequest,
  a: TextExplainInput,
): Promise<JsonObject[]> {
  const scoped = request.partition !== '';
  const useIndex = request.useIndex.length > 0;
  const entries: Entry[] = [];

  // JSON indexes in scope: as the JSON planner judged them; out of scope: scope_mismatch.
  const judged = new Map<string, Plan['candidates'][number]>();
  for (const c of a.json?.candidates ?? []) {
    if (c.index.kind === 'json') judged.set(`${c.index.index.ddoc}\u0000${c.index.index.name}`, c);
  }
  for (const index of await jsonIndexes(db)) {
    const key: [string, string] = [index.ddoc, index.name];
    const base = { index: describeIndex(index), key, covering: false };
    const partial = index.partialFilter !== undefined && !a.named(index);
    if (partial) entries.push({ ...base, stage: 'partial', usable: false, reason: 'is_partial' });
    else if (index.partitioned !== scoped)
      entries.push({ ...base, stage: 'scope', usable: false, reason: 'scope_mismatch' });
    else {
      const c = judged.get(key.join('\u0000'));
      const covering = c?.covering ?? false;
      if (c?.usable === true)
        entries.push({ ...base, covering, stage: 'excluded', usable: true, reason: 'excluded_by_user' });
      else {
        const reason = c?.reasons.find((r) => r !== 'excluded_by_user' && r !== 'is_partial') ?? 'field_mismatch';
        entries.push({ ...base, covering, stage: 'notUsable', usable: false, reason });
      }
    }
  }

  const selector = selectorToJson(request.selector);
  for (const index of await textIndexes(db)) {
    if (index.ddoc === a.chosen.ddoc && index.name === a.chosen.name) continue;
    const base = { index: describeTextIndex(index), key: [index.ddoc, index.name] as [string, string], covering: null };
    if (a.partial(index) && !a.named(index))
      entries.push({ ...base, stage: 'partial', usable: false, reason: 'is_partial' });
    else if (index.partitioned !== scoped)
      entries.push({ ...base, stage: 'scope', usable: false, reason: 'scope_mismatch' });
    else if (!a.usable(index)) {
      const empty = selector instanceof JsonObject && selector.size === 0;
      entries.push({ ...base, stage: 'notUsable', usable: false, reason: empty ? 'empty_selector' : 'field_mismatch' });
    } else if (useIndex && !a.named(index)) {
      entries.push({ ...base, stage: 'excluded', usable: true, reason: 'excluded_by_user' });
    } else entries.push({ ...base, stage: 'unfavored', usable: true, reason: 'unfavored_type' });
  }

  // `_all_docs` serves no sort but by `_id`; usable, it is of the kind that did not run the query.
  const sorted = request.sort.length === 0 || (request.sort.length === 1 && request.sort[0]!.field === '_id');
  const allDocs = { index: ALL_DOCS_INDEX(), key: undefined, covering: null };
  if (!sorted) entries.push({ ...allDocs, stage: 'notUsable', usable: false, reason: 'sort_order_mismatch' });
  else if (useIndex) entries.push({ ...allDocs, stage: 'excluded', usable: true, reason: 'excluded_by_user' });
  else entries.push({ ...allDocs, stage: 'unfavored', usable: true, reason: 'unfavored_type' });

  const rank = new Map<Stage, number>();
  let next = 1;
  for (const stage of STAGES) {
    rank.set(stage, next);
    if (entries.some((e) => e.stage === stage)) next++;
  }
  entries.sort((x, y) => compareKeys(y.key, x.key));
  return entries.map((e) =>
    JsonObject.from([
      ['index', e.index],
      [
        'analysis',
        JsonObject.from([
          ['usable', e.usable],
          ['reasons', [JsonObject.from([['name', e.reason]])]],
          ['ranking', rank.get(e.stage)!],
          ['covering', e.covering],
        ]),
      ],
    ]),
  );
}

/** `_all_docs` (no key) first, then by design document and name in bytes. */
function compareKeys(x: [string, string] | undefined, y: [string, string] | undefined): number {
  if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? -1 : 1;
  return Buffer.compare(Buffer.from(x[0]), Buffer.from(y[0])) || Buffer.compare(Buffer.from(x[1]), Buffer.from(y[1]));
}
