/**
 * Whether a param's constraint can be matched inside the tree (build.ts, walk.ts) rather than by
 * the route's whole regexp. In the whole regexp (route.ts) a constrained param is its constraint's
 * source in a group; the tree instead runs the constraint, sticky, from where the param starts,
 * and asks it to end at the segment's end (`(?=\/|$)`). The two agree when the constraint can
 * never consume a `/` and never matches empty: then it cannot reach into the next segment, the
 * rest of the route starts at the same place whatever the constraint chose, and the first match
 * the constraint finds is the one the whole regexp keeps. Its lookarounds see the same path in
 * both (the sticky regexp runs over the whole path), so they may look anywhere.
 *
 * This reads the source as a regexp without flags reads it (the route's regexp is built without
 * any: `i` is folded into the source first, see case-fold.ts) and answers no whenever it meets
 * something it does not model (backreferences, `\c`, modifiers, a stray quantifier): such a
 * route keeps its own regexp, tried in declaration order.
 */

/**
 * What a piece of a regexp can do: the fewest chars it consumes, and which separators (`/`, `.`)
 * may be among them (SLASH_BIT, DOT_BIT).
 */
interface Reach {
  min: number;
  seps: number;
}

const SLASH = 47;
const DOT = 46;
const SLASH_BIT = 1;
const DOT_BIT = 2;
const ZERO_WIDTH: Reach = { min: 0, seps: 0 };
const ANY_CHAR: Reach = { min: 1, seps: SLASH_BIT | DOT_BIT };

/** One char of these separators. */
function char(seps: number): Reach {
  return seps === ANY_CHAR.seps ? ANY_CHAR : { min: 1, seps };
}

/** The separators a char code is. */
function sepsOf(code: number): number {
  return code === SLASH ? SLASH_BIT : code === DOT ? DOT_BIT : 0;
}

/** How a constraint may be matched in the tree. */
export interface SegmentFit {
  /** Whether it can be checked in place: it never consumes a `/` and never matches empty. */
  fits: boolean;
  /** Whether it may consume a `.` (a format or other optional group may then be taken into it). */
  dot: boolean;
}

const UNFIT: SegmentFit = { fits: false, dot: true };
const answers = new Map<string, SegmentFit>();

/** How the constraint with this (flag-free) source can be matched in the tree (see the module comment). */
export function segmentFit(source: string): SegmentFit {
  let fit = answers.get(source);
  if (fit === undefined) {
    const scan = new Scan(source);
    const reach = scan.disjunction();
    fit =
      reach !== null && scan.at === source.length && reach.min > 0 && (reach.seps & SLASH_BIT) === 0
        ? { fits: true, dot: (reach.seps & DOT_BIT) !== 0 }
        : UNFIT;
    // Sources are the few a route set declares; a request cannot add any.
    answers.set(source, fit);
  }
  return fit;
}

class Scan {
  at = 0;
  constructor(private readonly source: string) {}

  private peek(offset = 0): string | undefined {
    return this.source[this.at + offset];
  }

  disjunction(): Reach | null {
    let reach = this.alternative();
    while (reach !== null && this.peek() === '|') {
      this.at++;
      const next = this.alternative();
      if (next === null) return null;
      reach = { min: Math.min(reach.min, next.min), seps: reach.seps | next.seps };
    }
    return reach;
  }

  private alternative(): Reach | null {
    let min = 0;
    let seps = 0;
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      const term = this.term();
      if (term === null) return null;
      min += term.min;
      seps |= term.seps;
    }
    return { min, seps };
  }

  private term(): Reach | null {
    const c = this.peek()!;
    let atom: Reach | null;
    if (c === '^' || c === '$') {
      this.at++;
      return ZERO_WIDTH;
    }
    if (c === '(') atom = this.group();
    else if (c === '[') atom = this.characterClass();
    else if (c === '\\') atom = this.escape();
    else if (c === '.') {
      this.at++;
      atom = ANY_CHAR;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') return null;
    else {
      this.at++;
      atom = char(sepsOf(c.charCodeAt(0)));
    }
    if (atom === null) return null;
    const least = this.quantifier();
    if (least === null) return null;
    return least === 1 ? atom : { min: atom.min * least, seps: atom.seps };
  }

  /** The least repetitions a quantifier allows (1 when there is none); null for one it does not read. */
  private quantifier(): number | null {
    const c = this.peek();
    let least: number;
    if (c === '*' || c === '?') least = 0;
    else if (c === '+') least = 1;
    else if (c === '{') {
      const m = /^\{(\d+)(?:,\d*)?\}/.exec(this.source.slice(this.at));
      if (m === null) return null; // a literal `{`: not modelled
      this.at += m[0].length - 1;
      least = Number(m[1]);
    } else return 1;
    this.at++;
    if (this.peek() === '?') this.at++; // lazy
    return least;
  }

  private group(): Reach | null {
    const rest = this.source.slice(this.at, this.at + 4);
    let lookaround = false;
    if (rest.startsWith('(?=') || rest.startsWith('(?!')) {
      lookaround = true;
      this.at += 3;
    } else if (rest === '(?<=' || rest === '(?<!') {
      lookaround = true;
      this.at += 4;
    } else if (rest.startsWith('(?:')) this.at += 3;
    else if (rest.startsWith('(?<')) {
      const close = this.source.indexOf('>', this.at);
      if (close === -1) return null;
      this.at = close + 1;
    } else if (rest.startsWith('(?')) return null;
    else this.at++;
    const inner = this.disjunction();
    if (inner === null || this.peek() !== ')') return null;
    this.at++;
    // A lookaround consumes nothing: what it looks at may be anything, `/` included.
    return lookaround ? ZERO_WIDTH : inner;
  }

  /** `\d`, `\/`, `\b`...: outside a class. */
  private escape(): Reach | null {
    const c = this.peek(1);
    if (c === 'b' || c === 'B') {
      this.at += 2;
      return ZERO_WIDTH;
    }
    const member = this.classEscape();
    if (member === null) return null;
    return char(member.seps);
  }

  /**
   * An escape as a class member: a char code (-1 for a set) and the separators it holds; null
   * for one not modelled. (`\b` is a backspace here; `escape` reads it as the assertion first.)
   */
  private classEscape(): Member | null {
    const c = this.peek(1);
    if (c === undefined) return null;
    this.at += 2;
    switch (c) {
      case 'd':
      case 'w':
      case 's':
        return { code: -1, seps: 0 };
      case 'D':
      case 'W':
      case 'S':
        return { code: -1, seps: SLASH_BIT | DOT_BIT };
      case 'b':
        return { code: 8, seps: 0 };
      case 'n':
        return { code: 10, seps: 0 };
      case 'r':
        return { code: 13, seps: 0 };
      case 't':
        return { code: 9, seps: 0 };
      case 'v':
        return { code: 11, seps: 0 };
      case 'f':
        return { code: 12, seps: 0 };
      case 'x':
      case 'u': {
        const digits = c === 'x' ? 2 : 4;
        const hex = this.source.slice(this.at, this.at + digits);
        if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) return null;
        this.at += digits;
        const code = Number.parseInt(hex, 16);
        return { code, seps: sepsOf(code) };
      }
      case 'c':
      case 'k':
        return null;
      default:
        // Digits are backreferences (or octal escapes): not modelled.
        if (c >= '0' && c <= '9') return null;
        return { code: c.charCodeAt(0), seps: sepsOf(c.charCodeAt(0)) };
    }
  }

  private characterClass(): Reach | null {
    this.at++;
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.at++;
    }
    let seps = 0;
    for (;;) {
      const c = this.peek();
      if (c === undefined) return null;
      if (c === ']') break;
      const from = this.classAtom();
      if (from === null) return null;
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.at++;
        const to = this.classAtom();
        if (to === null) return null;
        // A range between two chars; with a set at either end the `-` is itself (Annex B).
        if (from.code >= 0 && to.code >= 0) {
          if (from.code <= SLASH && SLASH <= to.code) seps |= SLASH_BIT;
          if (from.code <= DOT && DOT <= to.code) seps |= DOT_BIT;
        } else seps |= from.seps | to.seps;
      } else seps |= from.seps;
    }
    this.at++;
    // A negated class matches the separators its members leave out.
    return char(negated ? ~seps & (SLASH_BIT | DOT_BIT) : seps);
  }

  private classAtom(): Member | null {
    const c = this.peek()!;
    if (c === '\\') return this.classEscape();
    this.at++;
    const code = c.charCodeAt(0);
    return { code, seps: sepsOf(code) };
  }
}

/** A class member: a char code (-1 for a set such as `\d`) and the separators it holds. */
interface Member {
  code: number;
  seps: number;
}
