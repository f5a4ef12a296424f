/**
 * A document's place in a search index (Lucene's document number, the last of a hit's `order`:
 * how many live documents have a lower row key), kept in memory beside the postings
 * (./postings.ts). After an update a page's rows read it from the documents' tree
 * (`countBelow`) before: the answer then waited for that tree's update (./search-docs-tree.ts
 * now applies it after the answer).
 *
 * The documents numbered below `inOrder` (the load's, read from the tree) have ascending keys:
 * the live ones below a number are a prefix sum over their liveness (a Fenwick tree, made on the
 * first ask and kept as they die). Those put later (the delta's, in the order put) are counted in
 * a sorted list of their live keys, made again on the first ask after one of them changed.
 */
export class DocRanks {
  /** Per document number, its row key (latin1: compared as strings, in byte order). */
  private readonly keys: string[] = [];
  private inOrder = 0;
  /** Fenwick tree over the liveness of documents [0, inOrder) (index i + 1 holds document i's share). */
  private fenwick: Int32Array | undefined;
  /** The live keys of documents from inOrder on, sorted; undefined when one of them changed since. */
  private deltaKeys: string[] | undefined;

  /** A document was given the next number. */
  added(key: string): void {
    this.keys.push(key);
    this.deltaKeys = undefined;
  }

  /** The documents numbered so far came in key order. */
  loaded(): void {
    this.inOrder = this.keys.length;
    this.fenwick = undefined;
    this.deltaKeys = undefined;
  }

  /** A live document died. */
  removed(doc: number): void {
    if (doc >= this.inOrder) {
      this.deltaKeys = undefined;
      return;
    }
    const tree = this.fenwick;
    if (tree === undefined) return;
    for (let i = doc + 1; i < tree.length; i += i & -i) tree[i]!--;
  }

  /** Live documents with a lower key than live document `doc` (`alives`: 1 per live number). */
  rankOf(doc: number, alives: Uint8Array): number {
    const key = this.keys[doc]!;
    const mainBelow = doc < this.inOrder ? doc : this.mainBelow(key);
    return this.liveMainBelow(mainBelow, alives) + this.liveDeltaBelow(key, alives);
  }

  /** Documents of the load with a lower key than `key` (their keys ascend). */
  private mainBelow(key: string): number {
    let low = 0;
    let high = this.inOrder;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.keys[mid]! < key) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Live documents of the load numbered below `end`. */
  private liveMainBelow(end: number, alives: Uint8Array): number {
    let tree = this.fenwick;
    if (tree === undefined) {
      const n = this.inOrder;
      tree = new Int32Array(n + 1);
      for (let i = 1; i <= n; i++) {
        tree[i]! += alives[i - 1] === 1 ? 1 : 0;
        const parent = i + (i & -i);
        if (parent <= n) tree[parent]! += tree[i]!;
      }
      this.fenwick = tree;
    }
    let count = 0;
    for (let i = end; i > 0; i -= i & -i) count += tree[i]!;
    return count;
  }

  /** Live documents put after the load with a lower key than `key`. */
  private liveDeltaBelow(key: string, alives: Uint8Array): number {
    let sorted = this.deltaKeys;
    if (sorted === undefined) {
      sorted = [];
      for (let doc = this.inOrder; doc < this.keys.length; doc++) if (alives[doc] === 1) sorted.push(this.keys[doc]!);
      // Latin1 strings compare by their bytes: the row keys' order.
      sorted.sort();
      this.deltaKeys = sorted;
    }
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (sorted[mid]! < key) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
