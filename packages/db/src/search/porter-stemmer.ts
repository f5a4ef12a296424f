/**
 * Martin Porter's stemming algorithm (1980), in the form Lucene's `PorterStemFilter` applies it
 * (the reference ANSI C version: `bli` → `ble` and `logi` → `log` in step 2, words of one or two
 * letters left alone). Input is a lowercased token; output its stem.
 */

export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  const s = new Stemmer(word);
  s.step1ab();
  s.step1c();
  s.step2();
  s.step3();
  s.step4();
  s.step5();
  return s.result();
}

class Stemmer {
  private readonly b: string[];
  /** The end of the word as it stands. */
  private k: number;
  /** The end of the stem before a suffix found by `ends`. */
  private j = 0;

  constructor(word: string) {
    this.b = [...word];
    this.k = this.b.length - 1;
  }

  result(): string {
    return this.b.slice(0, this.k + 1).join('');
  }

  private cons(i: number): boolean {
    switch (this.b[i]) {
      case 'a':
      case 'e':
      case 'i':
      case 'o':
      case 'u':
        return false;
      case 'y':
        return i === 0 ? true : !this.cons(i - 1);
      default:
        return true;
    }
  }

  /** The number of vowel-consonant sequences in the stem `b[0..j]`. */
  private m(): number {
    let n = 0;
    let i = 0;
    const j = this.j;
    for (;;) {
      if (i > j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }

  private vowelInStem(): boolean {
    for (let i = 0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }

  private doubleC(j: number): boolean {
    return j >= 1 && this.b[j] === this.b[j - 1] && this.cons(j);
  }

  /** consonant-vowel-consonant ending at i, the last not w, x or y (`hop`, not `snow`). */
  private cvc(i: number): boolean {
    if (i < 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const ch = this.b[i];
    return ch !== 'w' && ch !== 'x' && ch !== 'y';
  }

  private ends(suffix: string): boolean {
    const length = suffix.length;
    if (length > this.k + 1) return false;
    for (let n = 0; n < length; n++) if (this.b[this.k - length + 1 + n] !== suffix[n]) return false;
    this.j = this.k - length;
    return true;
  }

  private setTo(replacement: string): void {
    const at = this.j + 1;
    for (let n = 0; n < replacement.length; n++) this.b[at + n] = replacement[n]!;
    this.k = this.j + replacement.length;
  }

  private r(replacement: string): void {
    if (this.m() > 0) this.setTo(replacement);
  }

  /** Plurals and -ed/-ing. */
  step1ab(): void {
    if (this.b[this.k] === 's') {
      if (this.ends('sses')) this.k -= 2;
      else if (this.ends('ies')) this.setTo('i');
      else if (this.b[this.k - 1] !== 's') this.k--;
    }
    if (this.ends('eed')) {
      if (this.m() > 0) this.k--;
    } else if ((this.ends('ed') || this.ends('ing')) && this.vowelInStem()) {
      this.k = this.j;
      if (this.ends('at')) this.setTo('ate');
      else if (this.ends('bl')) this.setTo('ble');
      else if (this.ends('iz')) this.setTo('ize');
      else if (this.doubleC(this.k)) {
        const ch = this.b[this.k];
        this.k--;
        if (ch === 'l' || ch === 's' || ch === 'z') this.k++;
      } else if (this.m() === 1 && this.cvc(this.k)) {
        this.j = this.k;
        this.setTo('e');
      }
    }
  }

  /** Terminal y to i when there is another vowel in the stem. */
  step1c(): void {
    if (this.ends('y') && this.vowelInStem()) this.b[this.k] = 'i';
  }

  /** Double suffixes to single ones (-ization → -ize), when m > 0. */
  step2(): void {
    if (this.k === 0) return;
    this.firstOf(STEP2[this.b[this.k - 1]!]);
  }

  /** -ic-, -full, -ness etc. */
  step3(): void {
    this.firstOf(STEP3[this.b[this.k]!]);
  }

  /** -ant, -ence etc., in context <c>vcvc<v>. */
  step4(): void {
    if (this.k === 0) return;
    const suffixes = STEP4[this.b[this.k - 1]!];
    if (suffixes === undefined) return;
    let found = false;
    for (const suffix of suffixes) {
      if (!this.ends(suffix)) continue;
      if (suffix === 'ion' && !(this.j >= 0 && (this.b[this.j] === 's' || this.b[this.j] === 't'))) continue;
      found = true;
      break;
    }
    if (found && this.m() > 1) this.k = this.j;
  }

  /** A final -e, and -ll to -l, when m > 1. */
  step5(): void {
    this.j = this.k;
    if (this.b[this.k] === 'e') {
      const a = this.m();
      if (a > 1 || (a === 1 && !this.cvc(this.k - 1))) this.k--;
    }
    if (this.b[this.k] === 'l' && this.doubleC(this.k) && this.m() > 1) this.k--;
  }

  /** The first suffix of the list the word ends with is replaced (when m > 0); the rest are not tried. */
  private firstOf(rules: readonly (readonly [string, string])[] | undefined): void {
    if (rules === undefined) return;
    for (const [suffix, replacement] of rules) {
      if (this.ends(suffix)) {
        this.r(replacement);
        return;
      }
    }
  }
}

const STEP2: Record<string, readonly (readonly [string, string])[]> = {
  a: [
    ['ational', 'ate'],
    ['tional', 'tion'],
  ],
  c: [
    ['enci', 'ence'],
    ['anci', 'ance'],
  ],
  e: [['izer', 'ize']],
  l: [
    ['bli', 'ble'],
    ['alli', 'al'],
    ['entli', 'ent'],
    ['eli', 'e'],
    ['ousli', 'ous'],
  ],
  o: [
    ['ization', 'ize'],
    ['ation', 'ate'],
    ['ator', 'ate'],
  ],
  s: [
    ['alism', 'al'],
    ['iveness', 'ive'],
    ['fulness', 'ful'],
    ['ousness', 'ous'],
  ],
  t: [
    ['aliti', 'al'],
    ['iviti', 'ive'],
    ['biliti', 'ble'],
  ],
  g: [['logi', 'log']],
};

const STEP3: Record<string, readonly (readonly [string, string])[]> = {
  e: [
    ['icate', 'ic'],
    ['ative', ''],
    ['alize', 'al'],
  ],
  i: [['iciti', 'ic']],
  l: [
    ['ical', 'ic'],
    ['ful', ''],
  ],
  s: [['ness', '']],
};

const STEP4: Record<string, readonly string[]> = {
  a: ['al'],
  c: ['ance', 'ence'],
  e: ['er'],
  i: ['ic'],
  l: ['able', 'ible'],
  n: ['ant', 'ement', 'ment', 'ent'],
  o: ['ion', 'ou'],
  s: ['ism'],
  t: ['ate', 'iti'],
  u: ['ous'],
  v: ['ive'],
  z: ['ize'],
};
