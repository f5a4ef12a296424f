import { isBranching } from '../storage/tree-chunks.js';
import type { Rev } from './rev.js';

/**
 * The common write done on the stored text of a tree (./serialize.ts) without parsing it: a new
 * revision on the leaf of a history that is one line of revisions with plain (32 hex digit)
 * ids, which is every interactive update of a document never in conflict. Such a text is
 * `pos:id.id.….id` (each id maybe marked `d` or `m`), so the new revision is appended to it and
 * the revs limit cuts revisions off its front: what parsing, merging the path, stemming and
 * serializing give (test/revisions-property.test.ts holds them equal), without building a node
 * per revision on every write (1,000 of them for a document at the default revs limit).
 */
export interface LinearAppend {
  /** The stored text of the tree with the new revision. */
  text: string;
  /** The new revision, the tree's one leaf (its winner). */
  leaf: Rev;
  /** Revisions cut by the revs limit, oldest first. */
  stemmed: Rev[];
}

/** A linear stored tree's root generation, revision count and leaf. */
interface LinearShape {
  rootPos: number;
  count: number;
  /** Index of the root's id (after `pos:`). */
  start: number;
  leaf: Rev;
  leafDeleted: boolean;
}

/**
 * `text` with a revision `id` (deleted or not, with a body; or the function that makes the id)
 * on `parent`, stemmed to `revsLimit` revisions; undefined when the text is not one line of
 * plain ids, or `parent` is not its live leaf (the caller then takes the general path, which
 * also decides conflicts).
 */
export function appendToLinear(
  text: string,
  parent: Rev,
  id: string | (() => string),
  deleted: boolean,
  revsLimit: number,
): LinearAppend | undefined {
  if (!(revsLimit >= 1)) return undefined;
  const shape = linearShape(text);
  if (shape === undefined || shape.leafDeleted) return undefined;
  if (shape.leaf.pos !== parent.pos || shape.leaf.id !== parent.id) return undefined;
  // The id may be computed only now (hashing the body is wasted where this does not apply).
  if (typeof id === 'function') id = id();
  if (!isPlainId(id)) return undefined;
  const leaf = { pos: parent.pos + 1, id };
  const node = deleted ? `${id}d` : id;
  const cut = shape.count + 1 - revsLimit;
  if (cut <= 0) return { text: `${text}.${node}`, leaf, stemmed: [] };
  // The oldest `cut` revisions go; each is its id, its marks and a ".".
  const stemmed: Rev[] = [];
  let at = shape.start;
  for (let k = 0; k < cut && k < shape.count; k++) {
    stemmed.push({ pos: shape.rootPos + k, id: text.slice(at, at + 32) });
    const dot = text.indexOf('.', at);
    at = dot < 0 ? text.length : dot + 1;
  }
  const rest = cut < shape.count ? `${text.slice(at)}.` : '';
  return { text: `${shape.rootPos + cut}:${rest}${node}`, leaf, stemmed };
}

const DOT = 0x2e;
/** Characters of a plain revision id. */
const ID_LENGTH = 32;

/** The shape of a stored tree that is one line of plain ids; undefined for any other text. */
function linearShape(text: string): LinearShape | undefined {
  // A JSON-string id starts with a quote; branches use parentheses, disjoint trees semicolons.
  if (isBranching(text)) return undefined;
  const colon = text.indexOf(':');
  if (colon <= 0 || !/^[0-9]+$/.test(text.slice(0, colon))) return undefined;
  const rootPos = Number(text.slice(0, colon));
  // Past the checks above every node is 32 hex digits and its marks (./serialize.ts),
  // so a node without marks ends 32 characters on: one character read per node, not a search
  // (a 1,000-revision text: ~1,000 `indexOf` calls were a third of this function's cost).
  let count = 1;
  let last = colon;
  for (let at = colon + 1; ; ) {
    let dot = at + ID_LENGTH;
    if (text.charCodeAt(dot) !== DOT) {
      dot = text.indexOf('.', at);
      if (dot < 0) break;
    }
    count++;
    last = dot;
    at = dot + 1;
  }
  const leafId = text.slice(last + 1, last + 33);
  const marks = text.slice(last + 33);
  if (!isPlainId(leafId) || !(marks === '' || marks === 'd' || marks === 'm' || marks === 'dm')) return undefined;
  return {
    rootPos,
    count,
    start: colon + 1,
    leaf: { pos: rootPos + count - 1, id: leafId },
    leafDeleted: marks.startsWith('d'),
  };
}

function isPlainId(id: string): boolean {
  return id.length === 32 && /^[0-9a-f]{32}$/.test(id);
}
