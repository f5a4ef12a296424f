/**
 * Lucene 4's IndonesianAnalyzer: standard tokens → lowercase → Indonesian stop words (Tala's
 * list, as Lucene ships it) → IndonesianStemFilter with derivational stemming (Tala's
 * algorithm): with more than two vowels left, a particle (`-kah`, `-lah`, `-pun`) and a possessive
 * pronoun (`-ku`, `-mu`, `-nya`) off; then a first-order prefix (`meng-`, `meny-` → `s`, `men-`,
 * `mem-`, `me-`, `peng-`, `peny-`, `pen-`, `pem-`, `di-`, `ter-`, `ke-`) and, when one went, a
 * suffix (`-kan`, `-an`, `-i`, each barred after some prefixes) and then a second-order prefix
 * (`ber-`, `be-`, `per-`, `pe-`); when none went, the second-order prefix and then the suffix.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { endsWith, stemmed } from './stemmer-util.js';

export const INDONESIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `ada adanya adalah adapun agak agaknya agar akan akankah akhirnya aku akulah amat amatlah anda
  andalah antar diantaranya antara antaranya diantara apa apaan mengapa apabila apakah apalagi
  apatah atau ataukah ataupun bagai bagaikan sebagai sebagainya bagaimana bagaimanapun sebagaimana
  bagaimanakah bagi bahkan bahwa bahwasanya sebaliknya banyak sebanyak beberapa seberapa begini
  beginian beginikah beginilah sebegini begitu begitukah begitulah begitupun sebegitu belum belumlah
  sebelum sebelumnya sebenarnya berapa berapakah berapalah berapapun betulkah sebetulnya biasa
  biasanya bila bilakah bisa bisakah sebisanya boleh bolehkah bolehlah buat bukan bukankah bukanlah
  bukannya cuma percuma dahulu dalam dan dapat dari daripada dekat demi demikian demikianlah
  sedemikian dengan depan di dia dialah dini diri dirinya terdiri dong dulu enggak enggaknya entah
  entahlah terhadap terhadapnya hal hampir hanya hanyalah harus haruslah harusnya seharusnya hendak
  hendaklah hendaknya hingga sehingga ia ialah ibarat ingin inginkah inginkan ini inikah inilah itu
  itukah itulah jangan jangankan janganlah jika jikalau juga justru kala kalau kalaulah kalaupun
  kalian kami kamilah kamu kamulah kan kapan kapankah kapanpun dikarenakan karena karenanya ke kecil
  kemudian kenapa kepada kepadanya ketika seketika khususnya kini kinilah kiranya sekiranya kita
  kitalah kok lagi lagian selagi lah lain lainnya melainkan selaku lalu melalui terlalu lama lamanya
  selama selama selamanya lebih terlebih bermacam macam semacam maka makanya makin malah malahan
  mampu mampukah mana manakala manalagi masih masihkah semasih masing mau maupun semaunya memang
  mereka merekalah meski meskipun semula mungkin mungkinkah nah namun nanti nantinya nyaris oleh
  olehnya seorang seseorang pada padanya padahal paling sepanjang pantas sepantasnya sepantasnyalah
  para pasti pastilah per pernah pula pun merupakan rupanya serupa saat saatnya sesaat saja sajalah
  saling bersama sama sesama sambil sampai sana sangat sangatlah saya sayalah se sebab sebabnya
  sebuah tersebut tersebutlah sedang sedangkan sedikit sedikitnya segala segalanya segera sesegera
  sejak sejenak sekali sekalian sekalipun sesekali sekaligus sekarang sekarang sekitar sekitarnya
  sela selain selalu seluruh seluruhnya semakin sementara sempat semua semuanya sendiri sendirinya
  seolah seperti sepertinya sering seringnya serta siapa siapakah siapapun disini disinilah sini
  sinilah sesuatu sesuatunya suatu sesudah sesudahnya sudah sudahkah sudahlah supaya tadi tadinya
  tak tanpa setelah telah tentang tentu tentulah tentunya tertentu seterusnya tapi tetapi setiap
  tiap setidaknya tidak tidakkah tidaklah toh waduh wah wahai sewaktu walau walaupun wong yaitu
  yakni yang`.split(/\s+/),
);

export function indonesianAnalyzer(stop: ReadonlySet<string> = INDONESIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => stemmed(withoutStopWords(lowercased(standardTokens(text)), stop), indonesianStem);
}

const KE = 1;
const PENG = 2;
const DI = 4;
const MENG = 8;
const TER = 16;
const BER = 32;
const PE = 64;

const isVowel = (unit: string | undefined) =>
  unit === 'a' || unit === 'e' || unit === 'i' || unit === 'o' || unit === 'u';

/** The stemmer's state through one word: its vowels left and the prefixes removed. */
interface Word {
  s: string[];
  len: number;
  syllables: number;
  flags: number;
}

const startsWith = (w: Word, prefix: string) =>
  prefix.length <= w.len && prefix.split('').every((unit, i) => w.s[i] === unit);

/** Removes the first `n` units, one syllable fewer, `flag` set. */
function dropPrefix(w: Word, n: number, flag: number): true {
  w.s.splice(0, n);
  w.len -= n;
  w.syllables--;
  w.flags |= flag;
  return true;
}

export function indonesianStem(s: string[], len: number): number {
  const w: Word = { s, len, syllables: 0, flags: 0 };
  for (let i = 0; i < len; i++) if (isVowel(s[i])) w.syllables++;
  if (w.syllables > 2 && ['kah', 'lah', 'pun'].some((e) => endsWith(s, w.len, e))) {
    w.len -= 3;
    w.syllables--;
  }
  if (w.syllables > 2) {
    if (endsWith(s, w.len, 'ku') || endsWith(s, w.len, 'mu')) {
      w.len -= 2;
      w.syllables--;
    } else if (endsWith(s, w.len, 'nya')) {
      w.len -= 3;
      w.syllables--;
    }
  }
  if (w.syllables > 2 && firstOrderPrefix(w)) {
    if (w.syllables > 2 && suffix(w) && w.syllables > 2) secondOrderPrefix(w);
  } else {
    if (w.syllables > 2) secondOrderPrefix(w);
    if (w.syllables > 2) suffix(w);
  }
  return w.len;
}

function firstOrderPrefix(w: Word): boolean {
  const { s } = w;
  if (startsWith(w, 'meng')) return dropPrefix(w, 4, MENG);
  if (startsWith(w, 'meny') && w.len > 4 && isVowel(s[4])) {
    s[3] = 's';
    return dropPrefix(w, 3, MENG);
  }
  if (startsWith(w, 'men') || startsWith(w, 'mem')) return dropPrefix(w, 3, MENG);
  if (startsWith(w, 'me')) return dropPrefix(w, 2, MENG);
  if (startsWith(w, 'peng')) return dropPrefix(w, 4, PENG);
  if (startsWith(w, 'peny') && w.len > 4 && isVowel(s[4])) {
    s[3] = 's';
    return dropPrefix(w, 3, PENG);
  }
  if (startsWith(w, 'peny')) return dropPrefix(w, 4, PENG);
  if (startsWith(w, 'pen') && w.len > 3 && isVowel(s[3])) {
    s[2] = 't';
    return dropPrefix(w, 2, PENG);
  }
  if (startsWith(w, 'pen') || startsWith(w, 'pem')) return dropPrefix(w, 3, PENG);
  if (startsWith(w, 'di')) return dropPrefix(w, 2, DI);
  if (startsWith(w, 'ter')) return dropPrefix(w, 3, TER);
  if (startsWith(w, 'ke')) return dropPrefix(w, 2, KE);
  return false;
}

function secondOrderPrefix(w: Word): boolean {
  const { s } = w;
  if (startsWith(w, 'ber')) return dropPrefix(w, 3, BER);
  if (w.len === 7 && startsWith(w, 'belajar')) return dropPrefix(w, 3, BER);
  if (startsWith(w, 'be') && w.len > 4 && !isVowel(s[2]) && s[3] === 'e' && s[4] === 'r') return dropPrefix(w, 2, BER);
  if (startsWith(w, 'per')) return dropPrefix(w, 3, 0);
  if (w.len === 7 && startsWith(w, 'pelajar')) return dropPrefix(w, 3, 0);
  if (startsWith(w, 'pe')) return dropPrefix(w, 2, PE);
  return false;
}

function suffix(w: Word): boolean {
  const { s, flags } = w;
  let cut = 0;
  if (endsWith(s, w.len, 'kan') && (flags & (KE | PENG | PE)) === 0) cut = 3;
  else if (endsWith(s, w.len, 'an') && (flags & (DI | MENG | TER)) === 0) cut = 2;
  else if (endsWith(s, w.len, 'i') && !endsWith(s, w.len, 'si') && (flags & (BER | KE | PENG)) === 0) cut = 1;
  if (cut === 0) return false;
  w.len -= cut;
  w.syllables--;
  return true;
}
