/**
 * Revision ids and revision trees, pure functions over plain data.
 *
 * - rev.ts: `parseRev` (400 "Invalid rev format"), `formatRev`, byte order `compareRevIds`,
 *   `normalizeRevId` (how CouchDB prints an id back).
 * - rev-id.ts: `newRevId`, CouchDB's deterministic MD5-over-term rev id.
 * - tree.ts: the `RevTree` forest type (`{ pos, node }` roots, `RevNode` children sorted).
 * - merge.ts: `mergePath(tree, path, revsLimit)` → `{ tree, outcome, stemmed, filled, changed }`.
 * - stem.ts: `stemTree` for a changed revs_limit (mergePath stems by itself).
 * - leaves.ts / winner.ts: `leaves`, `leafNodes` (no paths), `winner`, `conflicts`, `deletedConflicts`.
 * - find.ts: `findRev`, `revisions` (`_revisions`), `revsInfo` (`_revs_info`), `latest`.
 * - revs-diff.ts: `missingRevs`, `possibleAncestors` (`_revs_diff`).
 * - serialize.ts: `serializeTree` / `parseTree`, the compact stored form; `isOneLineTree` on its text.
 * - linear-append.ts: `appendToLinear`, a new leaf on a one-line history done on its stored text.
 */
export { type Rev, parseRev, formatRev, normalizeRevId, revIdBytes, compareRevIds, compareRevs } from './rev.js';
export { newRevId, type HashedAttachment } from './rev-id.js';
export { type RevNode, type RevRoot, type RevTree, type RevPath, cloneTree, walk, treeSize } from './tree.js';
export { type MergeOutcome, type MergeResult, DEFAULT_REVS_LIMIT, mergePath } from './merge.js';
export { stemTree } from './stem.js';
export { keyTreeLeaves, type Leaf, leaves, leafNodes } from './leaves.js';
export { compareLeaves, sortedLeaves, winner, conflicts, deletedConflicts } from './winner.js';
export { type FoundRev, type RevStatus, findRev, revisions, revsInfo, latest } from './find.js';
export { missingRevs, possibleAncestors } from './revs-diff.js';
export { serializeTree, parseTree, isOneLineTree } from './serialize.js';
export { type LinearAppend, appendToLinear } from './linear-append.js';
