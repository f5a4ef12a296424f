/**
 * A design document read as a view group: its views, their options, the design-level options
 * (per-view query defaults, a Divan extension; `collation`, `include_design`, `local_seq`), and
 * the signature that names its index. Any change that can change a view's rows or reductions
 * changes the signature (CouchDB's rule: map and reduce sources, options, language, `views.lib`); the
 * collator version is part of it too, so an ICU upgrade builds a new index instead of reading
 * one ordered by the old rules.
 */
import { createHash } from 'node:crypto';
import { CouchError } from '../errors.js';
import { collatorVersion } from '../collation/index.js';

export interface ViewDef {
  name: string;
  map: string;
  /** JavaScript source or a builtin name (`_count`, ...). */
  reduce?: string;
  /** The view's own options (CouchDB 3: `collation`, `include_design`, `local_seq`). */
  options: Record<string, unknown>;
  /** `collation: "raw"` in the view's options or (a Divan extension) at the root of the ddoc's `options`. */
  raw: boolean;
  /**
   * A partitioned view (its design document's, see `ViewGroup.partitioned`): each row key starts
   * with its document's partition (./index/partition-rows.ts).
   */
  partitioned: boolean;
}

export interface ViewGroup {
  ddocId: string;
  language: string;
  views: ViewDef[];
  /** The ddoc's `options`: query defaults for every view (a Divan extension) and index options. */
  options: Record<string, unknown>;
  /** Map design docs too. */
  includeDesign: boolean;
  /** Give map functions `doc._local_seq`. */
  localSeq: boolean;
  /** `views.lib`: the CommonJS modules map functions `require` (`views/lib/...`); `{}` when none. */
  lib: unknown;
  /**
   * `options.partitioned`, by default the database's own setting (CouchDB's rule; `true` is
   * refused on save in a database that is not partitioned): its queries name one partition.
   */
  partitioned: boolean;
  signature: string;
  /**
   * How its updates show in `_active_tasks` when not as a view group's (`indexer`): a full-text
   * index is CouchDB's `search_indexer` of one index.
   */
  task?: { type: 'search_indexer'; index: string };
}

/** The view group of a design document's body (a plain object as JSON.parse gives it). */
export function viewGroupOf(ddocId: string, body: Record<string, unknown>, dbPartitioned = false): ViewGroup {
  const language = typeof body.language === 'string' ? body.language : 'javascript';
  const options = isObject(body.options) ? body.options : {};
  const partitioned = dbPartitioned && options.partitioned !== false;
  const views: ViewDef[] = [];
  const rawViews = isObject(body.views) ? body.views : {};
  for (const name of Object.keys(rawViews)) {
    const view = rawViews[name];
    if (name === 'lib' || !isObject(view)) continue;
    // A Mango index (`"language": "query"`) maps by a definition object; its JSON text stands in
    // for the source (mango/json-index.ts reads it back).
    const map =
      typeof view.map === 'string'
        ? view.map
        : language === 'query' && isObject(view.map) && isObject(view.map.fields)
          ? JSON.stringify(view.map)
          : undefined;
    if (map === undefined) continue;
    const viewOptions = isObject(view.options) ? view.options : {};
    views.push({
      name,
      map,
      reduce: typeof view.reduce === 'string' ? view.reduce : undefined,
      options: viewOptions,
      raw: viewOptions.collation === 'raw' || options.collation === 'raw',
      partitioned,
    });
  }
  const includeDesign = options.include_design === true || views.some((v) => v.options.include_design === true);
  const localSeq = options.local_seq === true || views.some((v) => v.options.local_seq === true);
  // `{}` when there is none: the signatures of design documents without a lib stay what they were.
  const lib = isObject(rawViews.lib) ? rawViews.lib : {};
  const signature = createHash('md5')
    .update(
      JSON.stringify({
        language,
        views: views.map((v) => [v.name, v.map, v.reduce ?? null, v.options, v.raw]),
        options,
        lib,
        collator: collatorVersion(),
        // Row format 2: one document's rows under one key are ordered by value (./index/index-rows.ts).
        rows: 2,
        // Partitioned rows are keyed otherwise; other signatures stay what they were.
        ...(partitioned ? { partitioned } : {}),
      }),
    )
    .digest('hex');
  return { ddocId, language, views, options, includeDesign, localSeq, lib, partitioned, signature };
}

export function viewOf(group: ViewGroup, name: string): { view: ViewDef; index: number } {
  const index = group.views.findIndex((v) => v.name === name);
  if (index < 0) throw new CouchError('not_found', 'missing_named_view');
  return { view: group.views[index]!, index };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
