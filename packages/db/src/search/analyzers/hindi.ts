/**
 * Lucene 4's HindiAnalyzer: standard tokens → lowercase → IndicNormalizationFilter →
 * HindiNormalizationFilter (Pingali and Varma's spelling normalization, with Larkey's additions:
 * nukta, virama, zero-width (non-)joiners dropped, dead `n` and candrabindu → anusvara, long vowels
 * → short) → Hindi stop words (Savoy's list as Lucene ships it, with the normalized forms) →
 * HindiStemFilter (Ramanathan and Rao's light stemmer: the longest listed ending that leaves a
 * long enough word).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { indicNormalize } from './indic-normalization.js';
import { endsWith, stemmed } from './stemmer-util.js';

export const HINDI_STOP_WORDS: ReadonlySet<string> = new Set(
  `अंदर अत अपना अपनी अपने अभी आदि आप इत्यादि इन इनका इन्हीं इन्हें इन्हों इस इसका इसकी इसके इसमें इसी इसे
  उन उनका उनकी उनके उनको उन्हीं उन्हें उन्हों उस उसके उसी उसे एक एवं एस ऐसे और कई कर करता करते करना करने
  करें कहते कहा का काफ़ी कि कितना किन्हें किन्हों किया किर किस किसी किसे की कुछ कुल के को कोई कौन कौनसा गया
  घर जब जहाँ जा जितना जिन जिन्हें जिन्हों जिस जिसे जीधर जैसा जैसे जो तक तब तरह तिन तिन्हें तिन्हों तिस
  तिसे तो था थी थे दबारा दिया दुसरा दूसरे दो द्वारा न नहीं ना निहायत नीचे ने पर पर पहले पूरा पे फिर बनी
  बही बहुत बाद बाला बिलकुल भी भीतर मगर मानो मे में यदि यह यहाँ यही या यिह ये रखें रहा रहे ऱ्वासा लिए लिये
  लेकिन व वर्ग वह वह वहाँ वहीं वाले वुह वे वग़ैरह संग सकता सकते सबसे सभी साथ साबुत साभ सारा से सो ही हुआ
  हुई हुए है हैं हो होता होती होते होना होने अपनि जेसे होति सभि तिंहों इंहों दवारा इसि किंहें थि उंहों ओर
  जिंहें वहिं अभि बनि हि उंहिं उंहें हें वगेरह एसे रवासा कोन निचे काफि उसि पुरा भितर हे बहि वहां कोइ यहां
  जिंहों तिंहें किसि कइ यहि इंहिं जिधर इंहें अदि इतयादि हुइ कोनसा इसकि दुसरे जहां अप किंहों उनकि भि वरग
  हुअ जेसा नहिं`.split(/\s+/),
);

export function hindiAnalyzer(stop: ReadonlySet<string> = HINDI_STOP_WORDS): (text: string) => Token[] {
  return (text) =>
    stemmed(
      withoutStopWords(stemmed(stemmed(lowercased(standardTokens(text)), indicNormalize), hindiNormalize), stop),
      hindiStem,
    );
}

/** Letters replaced by another (nukta forms, candra and short vowels, long vowels → short). */
const REPLACED: Readonly<Record<string, string>> = {
  '\u0901': '\u0902',
  '\u0929': '\u0928',
  '\u0931': '\u0930',
  '\u0934': '\u0933',
  '\u0958': '\u0915',
  '\u0959': '\u0916',
  '\u095A': '\u0917',
  '\u095B': '\u091C',
  '\u095C': '\u0921',
  '\u095D': '\u0922',
  '\u095E': '\u092B',
  '\u095F': '\u092F',
  '\u0945': '\u0947',
  '\u0946': '\u0947',
  '\u0949': '\u094B',
  '\u094A': '\u094B',
  '\u090D': '\u090F',
  '\u090E': '\u090F',
  '\u0911': '\u0913',
  '\u0912': '\u0913',
  '\u0972': '\u0905',
  '\u0906': '\u0905',
  '\u0908': '\u0907',
  '\u090A': '\u0909',
  '\u0960': '\u090B',
  '\u0961': '\u090C',
  '\u0910': '\u090F',
  '\u0914': '\u0913',
  '\u0940': '\u093F',
  '\u0942': '\u0941',
  '\u0944': '\u0943',
  '\u0963': '\u0962',
  '\u0948': '\u0947',
  '\u094C': '\u094B',
};
/** Nukta, zero-width joiner and non-joiner, virama: removed. */
const REMOVED = new Set(['\u093C', '\u200D', '\u200C', '\u094D']);

export function hindiNormalize(s: string[], len: number): number {
  for (let i = 0; i < len; i++) {
    const unit = s[i]!;
    if (unit === '\u0928') {
      // A dead `n` (with virama) becomes the anusvara.
      if (i + 1 < len && s[i + 1] === '\u094D') {
        s[i] = '\u0902';
        s.splice(i + 1, 1);
        len--;
      }
    } else if (REMOVED.has(unit)) {
      s.splice(i--, 1);
      len--;
    } else {
      const replacement = REPLACED[unit];
      if (replacement !== undefined) s[i] = replacement;
    }
  }
  return len;
}

/** Endings by length, each group tried only when the word is longer than the ending plus one or two. */
const ENDINGS: readonly (readonly [number, readonly string[]])[] = [
  [6, ['ाएंगी', 'ाएंगे', 'ाऊंगी', 'ाऊंगा', 'ाइयाँ', 'ाइयों', 'ाइयां']],
  [
    5,
    [
      'ाएगी',
      'ाएगा',
      'ाओगी',
      'ाओगे',
      'एंगी',
      'ेंगी',
      'एंगे',
      'ेंगे',
      'ूंगी',
      'ूंगा',
      'ातीं',
      'नाओं',
      'नाएं',
      'ताओं',
      'ताएं',
      'ियाँ',
      'ियों',
      'ियां',
    ],
  ],
  [
    4,
    [
      'ाकर',
      'ाइए',
      'ाईं',
      'ाया',
      'ेगी',
      'ेगा',
      'ोगी',
      'ोगे',
      'ाने',
      'ाना',
      'ाते',
      'ाती',
      'ाता',
      'तीं',
      'ाओं',
      'ाएं',
      'ुओं',
      'ुएं',
      'ुआं',
    ],
  ],
  [3, ['कर', 'ाओ', 'िए', 'ाई', 'ाए', 'ने', 'नी', 'ना', 'ते', 'ीं', 'ती', 'ता', 'ाँ', 'ां', 'ों', 'ें']],
  [2, ['ो', 'े', 'ू', 'ु', 'ी', 'ि', 'ा']],
];

export function hindiStem(s: string[], len: number): number {
  for (const [longer, endings] of ENDINGS) {
    if (len <= longer) continue;
    for (const ending of endings) if (endsWith(s, len, ending)) return len - ending.length;
  }
  return len;
}
