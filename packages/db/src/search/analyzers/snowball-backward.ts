/**
 * Snowball's backward mode, for the stemmers whose scripts backtrack through chains of suffixes
 * (Turkish): a word, a cursor moving from its end towards its start, and the slice `[bra, ket]`
 * the script marks for deletion. Each step is a function answering whether it matched; `or`,
 * `attempt`, `test` and `not` put the cursor back (counted from the end, as deletions shorten the
 * word) where Snowball does. Changes to the word are never undone, as in Snowball.
 */
export type Step = () => boolean;

export class SnowballBackward {
  cursor: number;
  ket: number;
  bra: number;
  /** Counts the changes to the word, for whoever keeps results that depend on it. */
  changes = 0;

  constructor(public word: string) {
    this.cursor = word.length;
    this.ket = word.length;
    this.bra = word.length;
  }

  /** The literal `text` just before the cursor; the cursor moves before it. */
  eq(text: string): boolean {
    if (this.cursor < text.length || !this.word.startsWith(text, this.cursor - text.length)) return false;
    this.cursor -= text.length;
    return true;
  }

  /** The longest of `texts` before the cursor (Snowball's `among`). */
  among(texts: readonly string[]): boolean {
    let best = -1;
    for (const text of texts) {
      if (text.length > best && this.cursor >= text.length && this.word.startsWith(text, this.cursor - text.length)) {
        best = text.length;
      }
    }
    if (best < 0) return false;
    this.cursor -= best;
    return true;
  }

  /** The letter before the cursor is in (or, with `inside` false, not in) `group`. */
  letter(group: ReadonlySet<string>, inside = true): boolean {
    if (this.cursor <= 0 || group.has(this.word[this.cursor - 1]!) !== inside) return false;
    this.cursor--;
    return true;
  }

  next(): boolean {
    if (this.cursor <= 0) return false;
    this.cursor--;
    return true;
  }

  /** Moves back until the letter before the cursor is in `group` (not consuming it). */
  goto(group: ReadonlySet<string>): boolean {
    for (let c = this.cursor; c > 0; c--) {
      if (group.has(this.word[c - 1]!)) {
        this.cursor = c;
        return true;
      }
    }
    return false;
  }

  private saved(): number {
    return this.word.length - this.cursor;
  }
  private restore(saved: number): void {
    this.cursor = this.word.length - saved;
  }

  /** The first of `steps` that matches, each tried from the same place. */
  or(...steps: Step[]): boolean {
    const at = this.saved();
    for (const step of steps) {
      if (step()) return true;
      this.restore(at);
    }
    return false;
  }

  /** Snowball's `try`: the step if it matches, else nothing; always succeeds. */
  attempt(step: Step): true {
    const at = this.saved();
    if (!step()) this.restore(at);
    return true;
  }

  /** Snowball's `test`: whether the step matches, the cursor left where it was. */
  test(step: Step): boolean {
    const at = this.saved();
    const matched = step();
    this.restore(at);
    return matched;
  }

  not(step: Step): boolean {
    return !this.test(step);
  }

  /** `[`: the slice ends here. */
  markKet(): true {
    this.ket = this.cursor;
    return true;
  }
  /** `]`: the slice starts here. */
  markBra(): true {
    this.bra = this.cursor;
    return true;
  }

  /** Replaces the slice `[bra, ket]` (deletes it for `''`). */
  replace(text: string): true {
    this.replaceAt(this.bra, this.ket, text);
    return true;
  }

  /** Inserts `text` at the cursor (`<+`). */
  insert(text: string): true {
    const at = this.cursor;
    const adjustment = this.replaceAt(at, at, text);
    if (at <= this.bra) this.bra += adjustment;
    if (at <= this.ket) this.ket += adjustment;
    return true;
  }

  private replaceAt(from: number, to: number, text: string): number {
    const adjustment = text.length - (to - from);
    this.changes++;
    this.word = this.word.slice(0, from) + text + this.word.slice(to);
    if (this.cursor >= to) this.cursor += adjustment;
    else if (this.cursor > from) this.cursor = from;
    return adjustment;
  }
}
