/**
 * The page of a relevance sort (highest score first, then index order) after the bookmark, kept
 * in a bounded heap of the hits offered so far (the worst of the page on top): no entry, id or
 * row for the others. Its worst score is the threshold a block of postings must reach to be
 * scored at all (./query-top.ts).
 */
import type { Postings } from './postings.js';
import { compareTerms } from './search-mapper.js';

export class TopHits {
  private readonly docs: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(
    private readonly index: Postings,
    private readonly limit: number,
    private readonly after: { score: number; id: string } | undefined,
  ) {
    this.docs = new Int32Array(Math.max(0, limit));
    this.scores = new Float64Array(Math.max(0, limit));
  }

  /** Above 0: the hit (doc `a`, score `x`) comes after (doc `b`, score `y`). */
  private later(a: number, x: number, b: number, y: number): number {
    return y - x || this.index.compare(a, b);
  }

  offer(doc: number, score: number): void {
    if (this.limit <= 0) return;
    const { after } = this;
    if (after !== undefined && !((after.score - score || compareTerms(this.index.idOf(doc), after.id)) > 0)) return;
    const { docs, scores } = this;
    if (this.size < this.limit) {
      let at = this.size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (this.later(doc, score, docs[parent]!, scores[parent]!) <= 0) break;
        docs[at] = docs[parent]!;
        scores[at] = scores[parent]!;
        at = parent;
      }
      docs[at] = doc;
      scores[at] = score;
      return;
    }
    // Most hits of a big result lose to the page's worst on their score alone.
    if (score < scores[0]! || this.later(doc, score, docs[0]!, scores[0]!) >= 0) return;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child =
        right < this.size && this.later(docs[right]!, scores[right]!, docs[left]!, scores[left]!) > 0 ? right : left;
      if (this.later(docs[child]!, scores[child]!, doc, score) <= 0) break;
      docs[at] = docs[child]!;
      scores[at] = scores[child]!;
      at = child;
    }
    docs[at] = doc;
    scores[at] = score;
  }

  /**
   * Whether a hit among documents `first` to `last` (ascending numbers) scoring at most `bound`
   * could still enter the page: the page has room, or the bound beats its worst, or ties it and
   * one of them comes before the worst in index order.
   */
  reaches(bound: number, first: number, last: number): boolean {
    if (this.size < this.limit) return true;
    const worst = this.scores[0]!;
    if (bound !== worst) return bound > worst;
    return !this.index.allAfter(first, last, this.docs[0]!);
  }

  /** The page in order: documents and scores. */
  page(): { doc: number; score: number }[] {
    const out: { doc: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ doc: this.docs[i]!, score: this.scores[i]! });
    return out.sort((a, b) => this.later(a.doc, a.score, b.doc, b.score));
  }
}
