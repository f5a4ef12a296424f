/**
 * Lucene 4.6's TurkishAnalyzer: standard tokens → TurkishLowerCaseFilter (`I` → `ı`, `İ` → `i`)
 * → Turkish stop words (Lucene's list) → Snowball's Turkish stemmer (Çilden's, on Eryiğit and
 * Adalı's suffix automata): nominal verb suffixes, then — unless a plural `-lAr` ended that step —
 * noun suffix chains, each suffix checked for vowel harmony and its buffer consonant (y, n, s) or
 * vowel; then a final `b c d ğ` → `p ç t k`, and a `ı i u ü` put back after a final `d`/`g`
 * by the last vowel. Words of one syllable are left as they are. No ApostropheFilter: Lucene added
 * it in 4.8 (`istanbul'a` stays one term, as Clouseau has it).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { snowballStemmed, withoutStopWords } from './filters.js';
import { SnowballBackward } from './snowball-backward.js';

export const TURKISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `acaba altmış altı ama ancak arada aslında ayrıca bana bazı belki ben benden beni benim beri beş bile bin
  bir birçok biri birkaç birkez birşey birşeyi biz bize bizden bizi bizim böyle böylece bu buna bunda
  bundan bunlar bunları bunların bunu bunun burada çok çünkü da daha dahi de defa değil diğer diye doksan
  dokuz dolayı dolayısıyla dört edecek eden ederek edilecek ediliyor edilmesi ediyor eğer elli en etmesi
  etti ettiği ettiğini gibi göre halen hangi hatta hem henüz hep hepsi her herhangi herkesin hiç hiçbir
  için iki ile ilgili ise işte itibaren itibariyle kadar karşın katrilyon kendi kendilerine kendini
  kendisi kendisine kendisini kez ki kim kimden kime kimi kimse kırk milyar milyon mu mü mı nasıl ne neden
  nedenle nerde nerede nereye niye niçin o olan olarak oldu olduğu olduğunu olduklarını olmadı olmadığı
  olmak olması olmayan olmaz olsa olsun olup olur olursa oluyor on ona ondan onlar onlardan onları onların
  onu onun otuz oysa öyle pek rağmen sadece sanki sekiz seksen sen senden seni senin siz sizden sizi sizin
  şey şeyden şeyi şeyler şöyle şu şuna şunda şundan şunları şunu tarafından trilyon tüm üç üzere var vardı
  ve veya ya yani yapacak yapılan yapılması yapıyor yapmak yaptı yaptığı yaptığını yaptıkları yedi yerine
  yetmiş yine yirmi yoksa yüz zaten`.split(/\s+/),
);

export function turkishAnalyzer(stop: ReadonlySet<string> = TURKISH_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(turkishLowercased(standardTokens(text)), stop), turkishStem);
}

const COMBINING_DOT_ABOVE = '\u0307';

/** TurkishLowerCaseFilter: dotless `I` → `ı`, `I` with a combining dot above (or `İ`) → `i`. */
export function turkishLowercased(tokens: Token[]): Token[] {
  for (const token of tokens) {
    const chars = [...token.text];
    let out = '';
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === 'I') {
        // A dot above among the marks that follow makes it a dotted i; the dot goes.
        let j = i + 1;
        while (j < chars.length && /\p{Mn}/u.test(chars[j]!) && chars[j] !== COMBINING_DOT_ABOVE) j++;
        if (j < chars.length && chars[j] === COMBINING_DOT_ABOVE) {
          out += 'i';
          chars.splice(j, 1);
        } else out += '\u0131';
      } else if (c === '\u0130') out += 'i';
      else out += c.toLowerCase();
    }
    token.text = out;
  }
  return tokens;
}

const set = (letters: string) => new Set(letters);
const VOWEL = set('aeıioöuü');
const U = set('ıiuü');
/** The vowels a suffix with `a`, `e`, `ı`, `i`, `o`/`u`, `ö`/`ü` may follow (vowel harmony). */
const HARMONY: Readonly<Record<string, ReadonlySet<string>>> = {
  a: set('aıou'),
  e: set('eiöü'),
  ı: set('aı'),
  i: set('ei'),
  o: set('ou'),
  ö: set('öü'),
  u: set('ou'),
  ü: set('öü'),
};
const list = (texts: string) => texts.split(' ');
const POSSESSIVES = list('mız miz muz müz nız niz nuz nüz m n');
const LARI = list('leri ları');
const NU = list('nı ni nu nü');
const NUN = list('ın in un ün');
const YA = list('a e');
const NA = list('na ne');
const DA = list('da de ta te');
const NDA = list('nda nde');
const DAN = list('dan den tan ten');
const NDAN = list('ndan nden');
const YLA = list('la le');
const NCA = list('ca ce');
const YUM = list('ım im um üm');
const SUN = list('sın sin sun sün');
const YUZ = list('ız iz uz üz');
const SUNUZ = list('sınız siniz sunuz sünüz');
const LAR = list('ler lar');
const NUZ = list('nız niz nuz nüz');
const DUR = list('tır tir tur tür dır dir dur dür');
const CASINA = list('casına cesine');
const YDU = list(
  'tım tim tum tüm dım dim dum düm tın tin tun tün dın din dun dün tık tik tuk tük dık dik duk dük tı ti tu tü dı di du dü',
);
const YSA = list('sam san sak sem sen sek sa se');
const YMUS = list('mış miş muş müş');
const LAST_CONSONANTS: Readonly<Record<string, string>> = { b: 'p', c: 'ç', d: 't', ğ: 'k' };

export function turkishStem(word: string): string {
  // Words of one syllable (fewer than two vowels) are not stemmed.
  if ([...word].filter((c) => VOWEL.has(c)).length < 2) return word;
  const b = new SnowballBackward(word);
  let continueWithNouns = true;

  // The suffix's vowel (the last before the cursor) and the stem's vowel before it agree. Many
  // suffixes are tried at one place: each answer is kept until the word changes.
  let harmonyAt: (boolean | undefined)[] = [];
  let harmonyChanges = 0;
  const harmony = () => {
    if (harmonyChanges !== b.changes) {
      harmonyAt = [];
      harmonyChanges = b.changes;
    }
    let agrees = harmonyAt[b.cursor];
    if (agrees === undefined) {
      agrees = b.test(() => {
        if (!b.goto(VOWEL)) return false;
        const vowel = b.word[b.cursor - 1]!;
        b.cursor--;
        return b.goto(HARMONY[vowel]!);
      });
      harmonyAt[b.cursor] = agrees;
    }
    return agrees;
  };
  /** The buffer letter before a suffix: itself after a vowel, or no buffer letter and a vowel. */
  const buffered = (letter: string) => () =>
    b.or(
      () => b.eq(letter) && b.test(() => b.letter(VOWEL)),
      () => b.not(() => b.eq(letter)) && b.test(() => b.next() && b.letter(VOWEL)),
    );
  const optionalN = buffered('n');
  const optionalS = buffered('s');
  const optionalY = buffered('y');
  const optionalU = () =>
    b.or(
      () => b.letter(U) && b.test(() => b.letter(VOWEL, false)),
      () => b.not(() => b.letter(U)) && b.test(() => b.next() && b.letter(VOWEL, false)),
    );

  const possessives = () => b.among(POSSESSIVES) && optionalU();
  const sU = () => harmony() && b.letter(U) && optionalS();
  const lArI = () => b.among(LARI);
  const yU = () => harmony() && b.letter(U) && optionalY();
  const nU = () => harmony() && b.among(NU);
  const nUn = () => harmony() && b.among(NUN) && optionalN();
  const yA = () => harmony() && b.among(YA) && optionalY();
  const nA = () => harmony() && b.among(NA);
  const dA = () => harmony() && b.among(DA);
  const ndA = () => harmony() && b.among(NDA);
  const dAn = () => harmony() && b.among(DAN);
  const ndAn = () => harmony() && b.among(NDAN);
  const ylA = () => harmony() && b.among(YLA) && optionalY();
  const ki = () => b.eq('ki');
  const ncA = () => harmony() && b.among(NCA) && optionalN();
  const yUm = () => harmony() && b.among(YUM) && optionalY();
  const sUn = () => harmony() && b.among(SUN);
  const yUz = () => harmony() && b.among(YUZ) && optionalY();
  const sUnUz = () => b.among(SUNUZ);
  const lAr = () => harmony() && b.among(LAR);
  const nUz = () => harmony() && b.among(NUZ);
  const dUr = () => harmony() && b.among(DUR);
  const cAsInA = () => b.among(CASINA);
  const yDU = () => harmony() && b.among(YDU) && optionalY();
  const ysA = () => b.among(YSA) && optionalY();
  const ymUs = () => harmony() && b.among(YMUS) && optionalY();
  const yken = () => b.eq('ken') && optionalY();

  const ket = () => b.markKet();
  /** Snowball's `set`/`unset` of the flag that lets noun suffixes be looked for. */
  const nounsNext = (value: boolean) => {
    continueWithNouns = value;
    return true;
  };
  const cut = () => b.markBra() && b.replace('');
  const always = () => true;

  const nominalVerbSuffixes = () =>
    ket() &&
    nounsNext(true) &&
    b.or(
      () => b.or(ymUs, yDU, ysA, yken),
      () => cAsInA() && b.or(sUnUz, lAr, yUm, sUn, yUz, always) && ymUs(),
      () => lAr() && cut() && b.attempt(() => ket() && b.or(dUr, yDU, ysA, ymUs)) && nounsNext(false),
      () => nUz() && b.or(yDU, ysA),
      () => b.or(sUnUz, yUz, sUn, yUm) && cut() && b.attempt(() => ket() && ymUs()),
      () => dUr() && cut() && b.attempt(() => ket() && b.or(sUnUz, lAr, yUm, sUn, yUz, always) && ymUs()),
    ) &&
    cut();

  /** `[lAr] delete` then the chain before `-ki`. */
  const lArThenChain = (): boolean => ket() && lAr() && cut() && chainBeforeKi();
  const chainBeforeKi = (): boolean =>
    ket() &&
    ki() &&
    b.or(
      () =>
        dA() &&
        cut() &&
        b.attempt(
          () =>
            ket() &&
            b.or(
              () => lAr() && cut() && b.attempt(chainBeforeKi),
              () => possessives() && cut() && b.attempt(lArThenChain),
            ),
        ),
      () =>
        nUn() &&
        cut() &&
        b.attempt(
          () =>
            ket() &&
            b.or(
              () => lArI() && cut(),
              () => ket() && b.or(possessives, sU) && cut() && b.attempt(lArThenChain),
              chainBeforeKi,
            ),
        ),
      () =>
        ndA() &&
        b.or(
          () => lArI() && cut(),
          () => sU() && cut() && b.attempt(lArThenChain),
          chainBeforeKi,
        ),
    );

  const nounSuffixes = () =>
    b.or(
      () => ket() && lAr() && cut() && b.attempt(chainBeforeKi),
      () =>
        ket() &&
        ncA() &&
        cut() &&
        b.attempt(() =>
          b.or(
            () => ket() && lArI() && cut(),
            () => ket() && b.or(possessives, sU) && cut() && b.attempt(lArThenChain),
            lArThenChain,
          ),
        ),
      () =>
        ket() &&
        b.or(ndA, nA) &&
        b.or(
          () => lArI() && cut(),
          () => sU() && cut() && b.attempt(lArThenChain),
          chainBeforeKi,
        ),
      () => ket() && b.or(ndAn, nU) && b.or(() => sU() && cut() && b.attempt(lArThenChain), lArI),
      () =>
        ket() &&
        dAn() &&
        cut() &&
        b.attempt(
          () =>
            ket() &&
            b.or(
              () => possessives() && cut() && b.attempt(lArThenChain),
              () => lAr() && cut() && b.attempt(chainBeforeKi),
              chainBeforeKi,
            ),
        ),
      () =>
        ket() &&
        b.or(nUn, ylA) &&
        cut() &&
        b.attempt(() =>
          b.or(lArThenChain, () => ket() && b.or(possessives, sU) && cut() && b.attempt(lArThenChain), chainBeforeKi),
        ),
      () => ket() && lArI() && cut(),
      chainBeforeKi,
      () =>
        ket() &&
        b.or(dA, yU, yA) &&
        cut() &&
        b.attempt(
          () =>
            ket() &&
            b.or(() => possessives() && cut() && b.attempt(() => ket() && lAr()), lAr) &&
            cut() &&
            ket() &&
            chainBeforeKi(),
        ),
      () => ket() && b.or(possessives, sU) && cut() && b.attempt(lArThenChain),
    );

  b.attempt(nominalVerbSuffixes);
  b.cursor = b.word.length;
  if (!continueWithNouns) return b.word;
  b.attempt(nounSuffixes);

  // Postlude, from the end again: not for the reserved words `ad` and `soyad`.
  b.cursor = b.word.length;
  const reserved = b.test(() => b.eq('ad') && b.attempt(() => b.eq('soy')) && b.cursor === 0);
  if (!reserved) {
    b.test(appendU(b));
    b.test(() => {
      b.markKet();
      const last = b.word[b.cursor - 1];
      if (last === undefined || LAST_CONSONANTS[last] === undefined) return false;
      b.cursor--;
      b.markBra();
      return b.replace(LAST_CONSONANTS[last]);
    });
  }
  return b.word;
}

/** After a final `d` or `g`, the vowel the last vowel of the stem calls for. */
function appendU(b: SnowballBackward): () => boolean {
  const lastVowelIs = (vowels: string) => () =>
    b.test(() => b.goto(VOWEL) && b.or(...[...vowels].map((v) => () => b.eq(v))));
  return () =>
    b.test(() =>
      b.or(
        () => b.eq('d'),
        () => b.eq('g'),
      ),
    ) &&
    b.or(
      () => lastVowelIs('aı')() && b.insert('ı'),
      () => lastVowelIs('ei')() && b.insert('i'),
      () => lastVowelIs('ou')() && b.insert('u'),
      () => lastVowelIs('öü')() && b.insert('ü'),
    );
}
