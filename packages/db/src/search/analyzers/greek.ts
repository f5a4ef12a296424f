/**
 * Lucene 4's GreekAnalyzer: standard tokens → GreekLowerCaseFilter (lowercase, final sigma →
 * sigma, tonos and dialytika off) → Greek stop words (Lucene's list) → GreekStemFilter (Ntais'
 * stemmer: 22 rules of suffixes, each with the stems that keep part of the suffix; the long list
 * of rule 21 only when no earlier rule changed the word). The rules are Lucene's as it runs them,
 * operator precedence included (a few suffixes of rules 0 and 8 are removed whatever the length).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { withoutStopWords } from './filters.js';
import { stemmed } from './stemmer-util.js';

export const GREEK_STOP_WORDS: ReadonlySet<string> = new Set(
  `ο η το οι τα του τησ των τον την και κι κ ειμαι εισαι ειναι ειμαστε ειστε στο στον στη στην μα αλλα απο
  για προσ με σε ωσ παρα αντι κατα μετα θα να δε δεν μη μην επι ενω εαν αν τοτε που πωσ ποιοσ ποια ποιο
  ποιοι ποιεσ ποιων ποιουσ αυτοσ αυτη αυτο αυτοι αυτων αυτουσ αυτεσ αυτα εκεινοσ εκεινη εκεινο εκεινοι
  εκεινεσ εκεινα εκεινων εκεινουσ οπωσ ομωσ ισωσ οσο οτι`.split(/\s+/),
);

export function greekAnalyzer(stop: ReadonlySet<string> = GREEK_STOP_WORDS): (text: string) => Token[] {
  return (text) => stemmed(withoutStopWords(greekLowercased(standardTokens(text)), stop), greekStem);
}

/** Accented and final forms GreekLowerCaseFilter folds; anything else is lowercased. */
const FOLDED: Readonly<Record<string, string>> = {
  '\u03C2': '\u03C3',
  '\u0386': '\u03B1',
  '\u03AC': '\u03B1',
  '\u0388': '\u03B5',
  '\u03AD': '\u03B5',
  '\u0389': '\u03B7',
  '\u03AE': '\u03B7',
  '\u038A': '\u03B9',
  '\u03AF': '\u03B9',
  '\u03AA': '\u03B9',
  '\u03CA': '\u03B9',
  '\u0390': '\u03B9',
  '\u038E': '\u03C5',
  '\u03CD': '\u03C5',
  '\u03AB': '\u03C5',
  '\u03CB': '\u03C5',
  '\u03B0': '\u03C5',
  '\u038C': '\u03BF',
  '\u03CC': '\u03BF',
  '\u038F': '\u03C9',
  '\u03CE': '\u03C9',
  '\u03A2': '\u03C2',
};

export function greekLowercased(tokens: Token[]): Token[] {
  for (const token of tokens) {
    let out = '';
    for (const c of token.text) out += FOLDED[c] ?? c.toLowerCase();
    token.text = out;
  }
  return tokens;
}

type Word = string[];

/** Whether the first `len` letters end with any of `suffixes`. */
function ew(s: Word, len: number, ...suffixes: string[]): boolean {
  return suffixes.some((suffix) => {
    if (suffix.length > len) return false;
    for (let i = 0; i < suffix.length; i++) if (s[len - suffix.length + i] !== suffix[i]) return false;
    return true;
  });
}
/** Whether the first `len` letters are one of `set`'s words. */
function is(set: ReadonlySet<string>, s: Word, len: number): boolean {
  return set.has(s.slice(0, len).join(''));
}
function words(list: string): ReadonlySet<string> {
  return new Set(list.split(/\s+/));
}
const VOWELS = new Set('αεηιουω');
const VOWELS_NO_Y = new Set('αεηιοω');
const endsWithVowel = (s: Word, len: number) => len > 0 && VOWELS.has(s[len - 1]!);
const endsWithVowelNoY = (s: Word, len: number) => len > 0 && VOWELS_NO_Y.has(s[len - 1]!);
/** Writes `text` over the letters ending at `len`. */
function put(s: Word, len: number, text: string): void {
  for (let i = 0; i < text.length; i++) s[len - text.length + i] = text[i]!;
}

export function greekStem(s: Word, len: number): number {
  if (len < 4) return len;
  const original = len;
  for (const rule of RULES) len = rule(s, len);
  if (len === original) len = rule21(s, len);
  return rule22(s, len);
}

function rule0(s: Word, len: number): number {
  if (len > 9 && ew(s, len, 'καθεστωτοσ', 'καθεστωτων')) return len - 4;
  if (len > 8 && ew(s, len, 'γεγονοτοσ', 'γεγονοτων')) return len - 4;
  if (len > 8 && ew(s, len, 'καθεστωτα')) return len - 3;
  if (len > 7 && ew(s, len, 'τατογιου', 'τατογιων')) return len - 4;
  if (len > 7 && ew(s, len, 'γεγονοτα')) return len - 3;
  if (len > 7 && ew(s, len, 'καθεστωσ')) return len - 2;
  // Lucene's parentheses: only the first suffix is held to the length.
  if (
    (len > 6 && ew(s, len, 'σκαγιου')) ||
    ew(s, len, 'σκαγιων', 'ολογιου', 'ολογιων', 'κρεατοσ', 'κρεατων', 'περατοσ', 'περατων', 'τερατοσ', 'τερατων')
  )
    return len - 4;
  if (len > 6 && ew(s, len, 'τατογια')) return len - 3;
  if (len > 6 && ew(s, len, 'γεγονοσ')) return len - 2;
  if (len > 5 && ew(s, len, 'φαγιου', 'φαγιων', 'σογιου', 'σογιων')) return len - 4;
  if (len > 5 && ew(s, len, 'σκαγια', 'ολογια', 'κρεατα', 'περατα', 'τερατα')) return len - 3;
  if (len > 4 && ew(s, len, 'φαγια', 'σογια', 'φωτοσ', 'φωτων')) return len - 3;
  if (len > 4 && ew(s, len, 'κρεασ', 'περασ', 'τερασ')) return len - 2;
  if (len > 3 && ew(s, len, 'φωτα')) return len - 2;
  if (len > 2 && ew(s, len, 'φωσ')) return len - 1;
  return len;
}

function rule1(s: Word, len: number): number {
  if (len > 4 && ew(s, len, 'αδεσ', 'αδων')) {
    len -= 4;
    if (!ew(s, len, 'οκ', 'μαμ', 'μαν', 'μπαμπ', 'πατερ', 'γιαγι', 'νταντ', 'κυρ', 'θει', 'πεθερ')) len += 2;
  }
  return len;
}

function rule2(s: Word, len: number): number {
  if (len > 4 && ew(s, len, 'εδεσ', 'εδων')) {
    len -= 4;
    if (ew(s, len, 'οπ', 'ιπ', 'εμπ', 'υπ', 'γηπ', 'δαπ', 'κρασπ', 'μιλ')) len += 2;
  }
  return len;
}

function rule3(s: Word, len: number): number {
  if (len > 5 && ew(s, len, 'ουδεσ', 'ουδων')) {
    len -= 5;
    if (
      ew(
        s,
        len,
        'αρκ',
        'καλιακ',
        'πεταλ',
        'λιχ',
        'πλεξ',
        'σκ',
        'σ',
        'φλ',
        'φρ',
        'βελ',
        'λουλ',
        'χν',
        'σπ',
        'τραγ',
        'φε',
      )
    )
      len += 3;
  }
  return len;
}

const EXC4 = words('θ δ ελ γαλ ν π ιδ παρ');
function rule4(s: Word, len: number): number {
  if (len > 3 && ew(s, len, 'εωσ', 'εων')) {
    len -= 3;
    if (is(EXC4, s, len)) len++;
  }
  return len;
}

function rule5(s: Word, len: number): number {
  if (len > 2 && ew(s, len, 'ια')) {
    len -= 2;
    if (endsWithVowel(s, len)) len++;
  } else if (len > 3 && ew(s, len, 'ιου', 'ιων')) {
    len -= 3;
    if (endsWithVowel(s, len)) len++;
  }
  return len;
}

const EXC6 = words(`αλ αδ ενδ αμαν αμμοχαλ ηθ ανηθ αντιδ φυσ βρωμ γερ εξωδ καλπ καλλιν καταδ μουλ μπαν μπαγιατ μπολ
  μποσ νιτ ξικ συνομηλ πετσ πιτσ πικαντ πλιατσ ποστελν πρωτοδ σερτ συναδ τσαμ υποδ φιλον φυλοδ χασ`);
function rule6(s: Word, len: number): number {
  let removed = false;
  if (len > 3 && ew(s, len, 'ικα', 'ικο')) {
    len -= 3;
    removed = true;
  } else if (len > 4 && ew(s, len, 'ικου', 'ικων')) {
    len -= 4;
    removed = true;
  }
  if (removed && (endsWithVowel(s, len) || is(EXC6, s, len))) len += 2;
  return len;
}

const EXC7 = words('αναπ αποθ αποκ αποστ βουβ ξεθ ουλ πεθ πικρ ποτ σιχ χ');
function rule7(s: Word, len: number): number {
  if (len === 5 && ew(s, len, 'αγαμε')) return len - 1;
  if (len > 7 && ew(s, len, 'ηθηκαμε')) len -= 7;
  else if (len > 6 && ew(s, len, 'ουσαμε')) len -= 6;
  else if (len > 5 && ew(s, len, 'αγαμε', 'ησαμε', 'ηκαμε')) len -= 5;
  if (len > 3 && ew(s, len, 'αμε')) {
    len -= 3;
    if (is(EXC7, s, len)) len += 2;
  }
  return len;
}

const EXC8A = words('τρ τσ');
const EXC8B = words(`βετερ βουλκ βραχμ γ δραδουμ θ καλπουζ καστελ κορμορ λαοπλ μωαμεθ μ μουσουλμ ν ουλ π πελεκ πλ
  πολισ πορτολ σαρακατσ σουλτ τσαρλατ ορφ τσιγγ τσοπ φωτοστεφ χ ψυχοπλ αγ ορφ γαλ γερ δεκ διπλ αμερικαν ουρ πιθ
  πουριτ σ ζωντ ικ καστ κοπ λιχ λουθηρ μαιντ μελ σιγ σπ στεγ τραγ τσαγ φ ερ αδαπ αθιγγ αμηχ ανικ ανοργ απηγ απιθ
  ατσιγγ βασ βασκ βαθυγαλ βιομηχ βραχυκ διατ διαφ ενοργ θυσ καπνοβιομηχ καταγαλ κλιβ κοιλαρφ λιβ μεγλοβιομηχ
  μικροβιομηχ νταβ ξηροκλιβ ολιγοδαμ ολογαλ πενταρφ περηφ περιτρ πλατ πολυδαπ πολυμηχ στεφ ταβ τετ υπερηφ υποκοπ
  χαμηλοδαπ ψηλοταβ`);
function rule8(s: Word, len: number): number {
  let removed = false;
  // Lucene's precedence again: only the first suffix of each group is held to the length.
  if (len > 8 && ew(s, len, 'ιουντανε')) {
    len -= 8;
    removed = true;
  } else if ((len > 7 && ew(s, len, 'ιοντανε')) || ew(s, len, 'ουντανε', 'ηθηκανε')) {
    len -= 7;
    removed = true;
  } else if ((len > 6 && ew(s, len, 'ιοτανε')) || ew(s, len, 'οντανε', 'ουσανε')) {
    len -= 6;
    removed = true;
  } else if ((len > 5 && ew(s, len, 'αγανε')) || ew(s, len, 'ησανε', 'οτανε', 'ηκανε')) {
    len -= 5;
    removed = true;
  }
  if (removed && is(EXC8A, s, len)) {
    len += 4;
    put(s, len, 'αγαν');
  }
  if (len > 3 && ew(s, len, 'ανε')) {
    len -= 3;
    if (endsWithVowelNoY(s, len) || is(EXC8B, s, len)) len += 2;
  }
  return len;
}

const EXC9 = words(
  'αβαρ βεν εναρ αβρ αδ αθ αν απλ βαρον ντρ σκ κοπ μπορ νιφ παγ παρακαλ σερπ σκελ συρφ τοκ υ δ εμ θαρρ θ',
);
function rule9(s: Word, len: number): number {
  if (len > 5 && ew(s, len, 'ησετε')) len -= 5;
  if (len > 3 && ew(s, len, 'ετε')) {
    len -= 3;
    if (
      is(EXC9, s, len) ||
      endsWithVowelNoY(s, len) ||
      ew(
        s,
        len,
        ...`οδ αιρ φορ ταθ διαθ σχ ενδ ευρ τιθ υπερθ ραθ ενθ ροθ σθ πυρ αιν συνδ συν συνθ χωρ πον βρ καθ ευθ εκθ νετ ρον
        αρκ βαρ βολ ωφελ`.split(/\s+/),
      )
    )
      len += 2;
  }
  return len;
}

function rule10(s: Word, len: number): number {
  if (len > 5 && ew(s, len, 'οντασ', 'ωντασ')) {
    len -= 5;
    if (len === 3 && ew(s, len, 'αρχ')) {
      len += 3;
      s[len - 3] = 'ο';
    }
    if (ew(s, len, 'κρε')) {
      len += 3;
      s[len - 3] = 'ω';
    }
  }
  return len;
}

function rule11(s: Word, len: number): number {
  if (len > 6 && ew(s, len, 'ομαστε')) {
    len -= 6;
    if (len === 2 && ew(s, len, 'ον')) len += 5;
  } else if (len > 7 && ew(s, len, 'ιομαστε')) {
    len -= 7;
    if (len === 2 && ew(s, len, 'ον')) {
      len += 5;
      put(s, len, 'ομαστ');
    }
  }
  return len;
}

const EXC12A = words('π απ συμπ ασυμπ ακαταπ αμεταμφ');
const EXC12B = words('αλ αρ εκτελ ζ μ ξ παρακαλ αρ προ νισ');
function rule12(s: Word, len: number): number {
  if (len > 5 && ew(s, len, 'ιεστε')) {
    len -= 5;
    if (is(EXC12A, s, len)) len += 4;
  }
  if (len > 4 && ew(s, len, 'εστε')) {
    len -= 4;
    if (is(EXC12B, s, len)) len += 3;
  }
  return len;
}

const EXC13 = words('διαθ θ παρακαταθ προσθ συνθ');
function rule13(s: Word, len: number): number {
  if (len > 6 && ew(s, len, 'ηθηκεσ')) len -= 6;
  else if (len > 5 && ew(s, len, 'ηθηκα', 'ηθηκε')) len -= 5;
  let removed = false;
  if (len > 4 && ew(s, len, 'ηκεσ')) {
    len -= 4;
    removed = true;
  } else if (len > 3 && ew(s, len, 'ηκα', 'ηκε')) {
    len -= 3;
    removed = true;
  }
  if (removed && (is(EXC13, s, len) || ew(s, len, 'σκωλ', 'σκουλ', 'ναρθ', 'σφ', 'οθ', 'πιθ'))) len += 2;
  return len;
}

const EXC14 = words(`φαρμακ χαδ αγκ αναρρ βρομ εκλιπ λαμπιδ λεχ μ πατ ρ λ μεδ μεσαζ υποτειν αμ αιθ ανηκ δεσποζ
  ενδιαφερ δε δευτερευ καθαρευ πλε τσα`);
function rule14(s: Word, len: number): number {
  let removed = false;
  if (len > 5 && ew(s, len, 'ουσεσ')) {
    len -= 5;
    removed = true;
  } else if (len > 4 && ew(s, len, 'ουσα', 'ουσε')) {
    len -= 4;
    removed = true;
  }
  if (
    removed &&
    (is(EXC14, s, len) ||
      endsWithVowel(s, len) ||
      ew(s, len, 'ποδαρ', 'βλεπ', 'πανταχ', 'φρυδ', 'μαντιλ', 'μαλλ', 'κυματ', 'λαχ', 'ληγ', 'φαγ', 'ομ', 'πρωτ'))
  )
    len += 3;
  return len;
}

const EXC15A = words(`αβαστ πολυφ αδηφ παμφ ρ ασπ αφ αμαλ αμαλλι ανυστ απερ ασπαρ αχαρ δερβεν δροσοπ ξεφ νεοπ νομοτ
  ολοπ ομοτ προστ προσωποπ συμπ συντ τ υποτ χαρ αειπ αιμοστ ανυπ αποτ αρτιπ διατ εν επιτ κροκαλοπ σιδηροπ λ ναυ
  ουλαμ ουρ π τρ μ`);
const EXC15B = words('ψοφ ναυλοχ');
function rule15(s: Word, len: number): number {
  let removed = false;
  if (len > 4 && ew(s, len, 'αγεσ')) {
    len -= 4;
    removed = true;
  } else if (len > 3 && ew(s, len, 'αγα', 'αγε')) {
    len -= 3;
    removed = true;
  }
  if (removed) {
    const keep = is(EXC15A, s, len) || ew(s, len, 'οφ', 'πελ', 'χορτ', 'λλ', 'σφ', 'ρπ', 'φρ', 'πρ', 'λοχ', 'σμην');
    const unless = is(EXC15B, s, len) || ew(s, len, 'κολλ');
    if (keep && !unless) len += 2;
  }
  return len;
}

const EXC16 = words('ν χερσον δωδεκαν ερημον μεγαλον επταν');
function rule16(s: Word, len: number): number {
  let removed = false;
  if (len > 4 && ew(s, len, 'ησου')) {
    len -= 4;
    removed = true;
  } else if (len > 3 && ew(s, len, 'ησε', 'ησα')) {
    len -= 3;
    removed = true;
  }
  if (removed && is(EXC16, s, len)) len += 2;
  return len;
}

const EXC17 = words('ασβ σβ αχρ χρ απλ αειμν δυσχρ ευχρ κοινοχρ παλιμψ');
function rule17(s: Word, len: number): number {
  if (len > 4 && ew(s, len, 'ηστε')) {
    len -= 4;
    if (is(EXC17, s, len)) len += 3;
  }
  return len;
}

const EXC18 = words('ν ρ σπι στραβομουτσ κακομουτσ εξων');
function rule18(s: Word, len: number): number {
  let removed = false;
  if (len > 6 && ew(s, len, 'ησουνε', 'ηθουνε')) {
    len -= 6;
    removed = true;
  } else if (len > 4 && ew(s, len, 'ουνε')) {
    len -= 4;
    removed = true;
  }
  if (removed && is(EXC18, s, len)) {
    len += 3;
    put(s, len, 'ουν');
  }
  return len;
}

const EXC19 = words('παρασουσ φ χ ωριοπλ αζ αλλοσουσ ασουσ');
function rule19(s: Word, len: number): number {
  let removed = false;
  if (len > 6 && ew(s, len, 'ησουμε', 'ηθουμε')) {
    len -= 6;
    removed = true;
  } else if (len > 4 && ew(s, len, 'ουμε')) {
    len -= 4;
    removed = true;
  }
  if (removed && is(EXC19, s, len)) {
    len += 3;
    put(s, len, 'ουμ');
  }
  return len;
}

function rule20(s: Word, len: number): number {
  if (len > 5 && ew(s, len, 'ματων', 'ματοσ')) len -= 3;
  else if (len > 4 && ew(s, len, 'ματα')) len -= 2;
  return len;
}

/** Rule 21, the long list: endings by length, each group for words longer than its length. */
const LONG_LIST: readonly (readonly [number, string])[] = [
  [9, 'ιοντουσαν'],
  [8, 'ιομασταν ιοσασταν ιουμαστε οντουσαν'],
  [7, 'ιεμαστε ιεσαστε ιομουνα ιοσαστε ιοσουνα ιουνται ιουνταν ηθηκατε ομασταν οσασταν ουμαστε'],
  [6, 'ιομουν ιονταν ιοσουν ηθειτε ηθηκαν ομουνα οσαστε οσουνα ουνται ουνταν ουσατε'],
  [5, 'αγατε ιεμαι ιεται ιεσαι ιοταν ιουμα ηθεισ ηθουν ηκατε ησατε ησουν ομουν ονται ονταν οσουν ουμαι ουσαν'],
  [4, 'αγαν αμαι ασαι αται ειτε εσαι εται ηδεσ ηδων ηθει ηκαν ησαν ησει ησεσ ομαι οταν'],
  [3, 'αει εισ ηθω ησω ουν ουσ'],
  [2, 'αν ασ αω ει εσ ησ οι οσ ου υσ ων'],
];
const LONG_LIST_GROUPS = LONG_LIST.map(([length, endings]) => [length, endings.split(' ')] as const);

function rule21(s: Word, len: number): number {
  for (const [length, endings] of LONG_LIST_GROUPS) if (len > length && ew(s, len, ...endings)) return len - length;
  if (len > 1 && endsWithVowel(s, len)) return len - 1;
  return len;
}

function rule22(s: Word, len: number): number {
  if (ew(s, len, 'εστερ', 'εστατ')) return len - 5;
  if (ew(s, len, 'οτερ', 'οτατ', 'υτερ', 'υτατ', 'ωτερ', 'ωτατ')) return len - 4;
  return len;
}

const RULES = [
  rule0,
  rule1,
  rule2,
  rule3,
  rule4,
  rule5,
  rule6,
  rule7,
  rule8,
  rule9,
  rule10,
  rule11,
  rule12,
  rule13,
  rule14,
  rule15,
  rule16,
  rule17,
  rule18,
  rule19,
  rule20,
];
