/**
 * Lucene 8's JapaneseTokenizer as JapaneseAnalyzer builds it: search mode, punctuation
 * discarded, compound tokens kept (Lucene 8's default; Lucene 9's analyzer drops them).
 *
 * A Viterbi search over the lattice of dictionary words and unknown words (runs of one character
 * class) finds the cheapest segmentation, committing to it whenever only one path is alive. In
 * search mode a word too long to be one term (more than 2 characters all kanji, or more than 7
 * others) is searched again with penalties on long words: when that second-best segmentation costs
 * no more than the penalty over the best, its parts are the tokens and the compound is added at
 * its first part's position. The same steps as Lucene's, in the same order, so ties fall the same way.
 */
import type { KuromojiDictionary } from './kuromoji-dictionary.js';

const KANJI_LENGTH = 2;
const KANJI_PENALTY = 3000;
const OTHER_LENGTH = 7;
const OTHER_PENALTY = 1700;
const MAX_UNKNOWN_WORD_LENGTH = 1024;
const MAX_BACKTRACE_GAP = 1024;

/** A token: the dictionary entry, where it starts in the text (UTF-16 units) and its length. */
export interface KuromojiToken {
  entry: number;
  start: number;
  length: number;
}

/** The arcs arriving at one character position (Lucene's `Position`). */
class Position {
  count = 0;
  costs: number[] = [];
  lastRightId: number[] = [];
  backPos: number[] = [];
  backIndex: number[] = [];
  backId: number[] = [];
  // Only while finding the second-best segmentation under a too-long token:
  forwardCount = 0;
  forwardPos: number[] = [];
  forwardIndex: number[] = [];
  forwardId: number[] = [];

  constructor(public pos: number) {}

  add(cost: number, lastRightId: number, backPos: number, backIndex: number, backId: number): void {
    const i = this.count++;
    this.costs[i] = cost;
    this.lastRightId[i] = lastRightId;
    this.backPos[i] = backPos;
    this.backIndex[i] = backIndex;
    this.backId[i] = backId;
  }

  addForward(forwardPos: number, forwardIndex: number, forwardId: number): void {
    const i = this.forwardCount++;
    this.forwardPos[i] = forwardPos;
    this.forwardIndex[i] = forwardIndex;
    this.forwardId[i] = forwardId;
  }
}

/** The tokens of a text in Lucene's output order, each with its position increment (0: same place as the one before). */
export function kuromojiTokens(
  text: string,
  dictionary: KuromojiDictionary,
): { token: KuromojiToken; increment: number }[] {
  const tokenizer = new Tokenizer(text, dictionary);
  const out: { token: KuromojiToken; increment: number }[] = [];
  let lastTokenPos = -1;
  while (!tokenizer.end) {
    tokenizer.parse();
    // Backtraces add tokens last first.
    for (let i = tokenizer.pending.length - 1; i >= 0; i--) {
      const token = tokenizer.pending[i]!;
      out.push({ token, increment: token.start === lastTokenPos ? 0 : 1 });
      lastTokenPos = token.start;
    }
    tokenizer.pending.length = 0;
  }
  return out;
}

class Tokenizer {
  end = false;
  readonly pending: KuromojiToken[] = [];
  private pos = 0;
  private lastBackTracePos = 0;
  /**
   * The live positions, from the last backtrace (`oldest`) to `nextPos`, in a ring indexed by
   * absolute position: a freed position is reused for a later one, as Lucene's
   * WrappedPositionArray does, so the search allocates nothing per character.
   */
  private ring: Position[] = Array.from({ length: 8 }, () => new Position(-1));
  private oldest = 0;
  private nextPos = 0;

  constructor(
    private readonly text: string,
    private readonly dictionary: KuromojiDictionary,
  ) {
    // Beginning of sentence: no cost, right id 0.
    this.position(0).add(0, 0, -1, -1, -1);
  }

  private position(pos: number): Position {
    while (pos >= this.nextPos) {
      if (this.nextPos - this.oldest >= this.ring.length) this.growRing();
      const fresh = this.ring[this.nextPos & (this.ring.length - 1)]!;
      fresh.pos = this.nextPos++;
      fresh.count = 0;
      fresh.forwardCount = 0;
    }
    return this.ring[pos & (this.ring.length - 1)]!;
  }

  private growRing(): void {
    const ring = Array.from({ length: this.ring.length * 2 }, () => new Position(-1));
    for (let pos = this.oldest; pos < this.nextPos; pos++) {
      const live = this.ring[pos & (this.ring.length - 1)]!;
      ring[pos & (ring.length - 1)] = live;
    }
    this.ring = ring;
  }

  private freeBefore(pos: number): void {
    this.oldest = pos;
  }

  private penalty(pos: number, length: number): number {
    if (length > KANJI_LENGTH) {
      let allKanji = true;
      for (let p = pos; p < pos + length; p++) {
        if (!this.dictionary.isKanji(this.text.charCodeAt(p))) {
          allKanji = false;
          break;
        }
      }
      if (allKanji) return (length - KANJI_LENGTH) * KANJI_PENALTY;
      if (length > OTHER_LENGTH) return (length - OTHER_LENGTH) * OTHER_PENALTY;
    }
    return 0;
  }

  /** An arc from `from` to `endPos` for a word: from the cheapest arc arriving at `from`. */
  private add(from: Position, endPos: number, entry: number, addPenalty: boolean): void {
    const { dictionary } = this;
    const leftId = dictionary.leftId(entry);
    let leastCost = Number.MAX_SAFE_INTEGER;
    let leastIndex = -1;
    for (let i = 0; i < from.count; i++) {
      const cost = from.costs[i]! + dictionary.cost(from.lastRightId[i]!, leftId);
      if (cost < leastCost) {
        leastCost = cost;
        leastIndex = i;
      }
    }
    leastCost += dictionary.wordCost(entry);
    if (addPenalty) leastCost += this.penalty(from.pos, endPos - from.pos);
    this.position(endPos).add(leastCost, leftId, from.pos, leastIndex, entry);
  }

  /** Runs the search forward until some tokens are certain, then backtraces them into `pending`. */
  parse(): void {
    const { text, dictionary } = this;
    while (true) {
      if (this.pos >= text.length) break;
      const posData = this.position(this.pos);
      const isFrontier = this.nextPos === this.pos + 1;
      if (posData.count === 0) {
        this.pos++;
        continue;
      }
      if (this.pos > this.lastBackTracePos && posData.count === 1 && isFrontier) {
        // Only one path is alive here, so the best path goes through it.
        this.backtrace(posData, 0);
        posData.costs[0] = 0;
        if (this.pending.length !== 0) return;
      }
      if (this.pos - this.lastBackTracePos >= MAX_BACKTRACE_GAP) {
        // Too much buffered: commit to the cheapest partial path, here or ahead.
        let leastIndex = -1;
        let leastCost = Number.MAX_SAFE_INTEGER;
        let least: Position | undefined;
        for (let p = this.pos; p < this.nextPos; p++) {
          const candidate = this.position(p);
          for (let i = 0; i < candidate.count; i++) {
            if (candidate.costs[i]! < leastCost) {
              leastCost = candidate.costs[i]!;
              leastIndex = i;
              least = candidate;
            }
          }
        }
        if (least === undefined) throw new Error('kuromoji: no live path');
        for (let p = this.pos; p < this.nextPos; p++) {
          const other = this.position(p);
          if (other !== least) other.count = 0;
          else {
            if (leastIndex !== 0) {
              other.costs[0] = other.costs[leastIndex]!;
              other.lastRightId[0] = other.lastRightId[leastIndex]!;
              other.backPos[0] = other.backPos[leastIndex]!;
              other.backIndex[0] = other.backIndex[leastIndex]!;
              other.backId[0] = other.backId[leastIndex]!;
            }
            other.count = 1;
          }
        }
        this.backtrace(least, 0);
        least.costs[0] = 0;
        if (this.pos !== least.pos) this.pos = least.pos;
        if (this.pending.length !== 0) return;
        continue;
      }

      let anyMatches = false;
      dictionary.matches(text, this.pos, (endPos, first, end) => {
        for (let entry = first; entry < end; entry++) {
          this.add(posData, endPos, entry, false);
          anyMatches = true;
        }
      });
      const firstUnit = text.charCodeAt(this.pos);
      if (!anyMatches || dictionary.isInvoke(firstUnit)) {
        const characterClass = dictionary.characterClass(firstUnit);
        const isPunctuation = dictionary.isPunctuation(firstUnit);
        let length = 1;
        if (dictionary.isGroup(firstUnit)) {
          for (let ahead = this.pos + 1; length < MAX_UNKNOWN_WORD_LENGTH && ahead < text.length; ahead++) {
            const unit = text.charCodeAt(ahead);
            if (dictionary.characterClass(unit) !== characterClass || dictionary.isPunctuation(unit) !== isPunctuation)
              break;
            length++;
          }
        }
        const [first, end] = dictionary.unknownEntries(characterClass);
        for (let entry = first; entry < end; entry++) this.add(posData, this.pos + length, entry, false);
      }
      this.pos++;
    }
    this.end = true;
    if (this.pos > 0) {
      const endPosData = this.position(this.pos);
      let leastCost = Number.MAX_SAFE_INTEGER;
      let leastIndex = -1;
      for (let i = 0; i < endPosData.count; i++) {
        // With the cost of the end of the sentence (left id 0).
        const cost = endPosData.costs[i]! + dictionary.cost(endPosData.lastRightId[i]!, 0);
        if (cost < leastCost) {
          leastCost = cost;
          leastIndex = i;
        }
      }
      this.backtrace(endPosData, leastIndex);
    }
  }

  /**
   * Drops the arcs between `startPos` and `endPos` that leave the span, then scores the rest again
   * with the long-word penalties, starting from the best path's arc at `startPos`.
   */
  private pruneAndRescore(startPos: number, endPos: number, bestStartIndex: number): void {
    const { dictionary } = this;
    for (let pos = endPos; pos > startPos; pos--) {
      const posData = this.position(pos);
      for (let i = 0; i < posData.count; i++) {
        const backPos = posData.backPos[i]!;
        if (backPos >= startPos) this.position(backPos).addForward(pos, i, posData.backId[i]!);
      }
      posData.count = 0;
    }
    for (let pos = startPos; pos < endPos; pos++) {
      const posData = this.position(pos);
      if (posData.count === 0) {
        posData.forwardCount = 0;
        continue;
      }
      if (pos === startPos) {
        const rightId = startPos === 0 ? 0 : dictionary.leftId(posData.backId[bestStartIndex]!);
        const pathCost = posData.costs[bestStartIndex]!;
        for (let f = 0; f < posData.forwardCount; f++) {
          const entry = posData.forwardId[f]!;
          const toPos = posData.forwardPos[f]!;
          const cost =
            pathCost +
            dictionary.wordCost(entry) +
            dictionary.cost(rightId, dictionary.leftId(entry)) +
            this.penalty(pos, toPos - pos);
          this.position(toPos).add(cost, dictionary.leftId(entry), pos, bestStartIndex, entry);
        }
      } else {
        for (let f = 0; f < posData.forwardCount; f++) {
          this.add(posData, posData.forwardPos[f]!, posData.forwardId[f]!, true);
        }
      }
      posData.forwardCount = 0;
    }
  }

  /** Follows the back pointers from `endPosData` to the last backtrace, adding tokens last first. */
  private backtrace(endPosData: Position, fromIndex: number): void {
    const { dictionary, text } = this;
    const endPos = endPosData.pos;
    let pos = endPos;
    let bestIndex = fromIndex;
    let compound: KuromojiToken | undefined;
    let lastLeftId = -1;
    let backCount = 0;
    while (pos > this.lastBackTracePos) {
      const posData = this.position(pos);
      let backPos = posData.backPos[bestIndex]!;
      let length = pos - backPos;
      let backId = posData.backId[bestIndex]!;
      let nextBestIndex = posData.backIndex[bestIndex]!;

      if (compound === undefined) {
        const penalty = this.penalty(backPos, pos - backPos);
        if (penalty > 0) {
          // A too-long token: is there a segmentation of it within the penalty of the best?
          let maxCost = posData.costs[bestIndex]! + penalty;
          if (lastLeftId !== -1) maxCost += dictionary.cost(dictionary.leftId(backId), lastLeftId);
          this.pruneAndRescore(backPos, pos, posData.backIndex[bestIndex]!);
          let leastCost = Number.MAX_SAFE_INTEGER;
          let leastIndex = -1;
          for (let i = 0; i < posData.count; i++) {
            let cost = posData.costs[i]!;
            if (lastLeftId !== -1) cost += dictionary.cost(dictionary.leftId(posData.backId[i]!), lastLeftId);
            if (cost < leastCost) {
              leastCost = cost;
              leastIndex = i;
            }
          }
          if (leastIndex !== -1 && leastCost <= maxCost && posData.backPos[leastIndex] !== backPos) {
            // Keep the compound, to add when the backtrace of its parts reaches its start.
            compound = { entry: backId, start: backPos, length };
            bestIndex = leastIndex;
            nextBestIndex = posData.backIndex[bestIndex]!;
            backPos = posData.backPos[bestIndex]!;
            length = pos - backPos;
            backId = posData.backId[bestIndex]!;
            backCount = 0;
          }
        }
      }

      if (compound !== undefined && compound.start >= backPos) {
        // A compound all of whose parts were punctuation is dropped with them.
        if (backCount > 0) {
          backCount++;
          this.pending.push(compound);
        }
        compound = undefined;
      }
      if (length === 0 || !dictionary.isPunctuation(text.charCodeAt(backPos))) {
        this.pending.push({ entry: backId, start: backPos, length });
        backCount++;
      }
      lastLeftId = dictionary.leftId(backId);
      pos = backPos;
      bestIndex = nextBestIndex;
    }
    this.lastBackTracePos = endPos;
    this.freeBefore(endPos);
  }
}
