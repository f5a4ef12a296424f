// The search suite's corpus (issue #32: "100k documents of ~1 KB English text"): each document's
// `body` is ~1,000 bytes of English sentences, seeded by the document's number so every server
// and every run gets the same text.
//
// Why generated and not a book. Term statistics are what a full-text index's cost depends on: how
// many distinct terms (the dictionary), and how long each one's postings are (Zipf's law: the
// r-th most frequent word has a share ~1/r). Words here are drawn with Zipf weights (s = 1) from
// the ~1,000 most common English words in frequency order, followed by their regular inflections
// of all but the first 150 (-s, -ed, -ing), rarer by rank: ~3,500 distinct words, stop words ("the", "of",
// "and", ...) most frequent, as in English prose. Sentences are 6–22 words with capitals,
// commas and full stops, so tokenizers see real punctuation. What it lacks is grammar and
// names: phrases of two words are about as rare as their words' product says, which is what a
// phrase query's cost depends on.

import { rng } from './common.mjs';

const COMMON =
  'the of and to a in is it you that he was for on are with as i his they be at one have this from or had by not word but what some we can out other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find any new work part take get place made live where after back little only round man year came show every good me give our under name very through just form sentence great think say help low line differ turn cause much mean before move right boy old too same tell does set three want air well also play small end put home read hand port large spell add even land here must big high such follow act why ask men change went light kind off need house picture try us again animal point mother world near build self earth father head stand own page should country found answer school grow study still learn plant cover food sun four between state keep eye never last let thought city tree cross farm hard start might story saw far sea draw left late run while press close night real life few north open seem together next white children begin got walk example ease paper group always music those both mark often letter until mile river car feet care second book carry took science eat room friend began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain girl usual young ready above ever red list though feel talk bird soon body dog family direct pose leave song measure door product black short numeral class wind question happen complete ship area half rock order fire south problem piece told knew pass since top whole king space heard best hour better true during hundred five remember step early hold west ground interest reach fast verb sing listen six table travel less morning ten simple several vowel toward war lay against pattern slow center love person money serve appear road map rain rule govern pull cold notice voice unit power town fine certain fly fall lead cry dark machine note wait plan figure star box noun field rest correct able pound done beauty drive stood contain front teach week final gave green oh quick develop ocean warm free minute strong special mind behind clear tail produce fact street inch multiply nothing course stay wheel full force blue object decide surface deep moon island foot system busy test record boat common gold possible plane stead dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow tire bring yes distant fill east paint language among grand ball yet wave drop heart am present heavy dance engine position arm wide sail material size vary settle speak weight general ice matter circle pair include divide syllable felt perhaps pick sudden count square reason length represent art subject region energy hunt probable bed brother egg ride cell believe fraction forest sit race window store summer train sleep prove lone leg exercise wall catch mount wish sky board joy winter sat written wild instrument kept glass grass cow job edge sign visit past soft fun bright gas weather month million bear finish happy hope flower clothe strange gone jump baby eight village meet root buy raise solve metal whether push seven paragraph third shall held hair describe cook floor either result burn hill safe cat century consider type law bit coast copy phrase silent tall sand soil roll temperature finger industry value fight lie beat excite natural view sense ear else quite broke case middle kill son lake moment scale loud spring observe child straight consonant nation dictionary milk speed method organ pay age section dress cloud surprise quiet stone tiny climb cool design poor lot experiment bottom key iron single stick flat twenty skin smile crease hole trade melody trip office receive row mouth exact symbol die least trouble shout except wrote seed tone join suggest clean break lady yard rise bad blow oil blood touch grew cent mix team wire cost lost brown wear garden equal sent choose fell fit flow fair bank collect save control decimal gentle woman captain practice separate difficult doctor please protect noon whose locate ring character insect caught period indicate radio spoke atom human history effect electric expect crop modern element hit student corner party supply bone rail imagine provide agree thus capital chair danger fruit rich thick soldier process operate guess necessary sharp wing create neighbor wash bat rather crowd corn compare poem string bell depend meat rub tube famous dollar stream fear sight thin triangle planet hurry chief colony clock mine tie enter major fresh search send yellow gun allow print dead spot desert suit current lift rose continue block chart hat sell success company subtract event particular deal swim term opposite wife shoe shoulder spread arrange camp invent cotton born determine quart nine truck noise level chance gather shop stretch throw shine property column molecule select wrong gray repeat require broad prepare salt nose plural anger claim continent oxygen sugar death pretty skill women season solution magnet silver thank branch match suffix especially fig afraid huge sister steel discuss forward similar guide experience score apple bought led pitch coat mass card band rope slip win dream evening condition feed tool total basic smell valley nor double seat arrive master track parent shore division sheet substance favor connect post spend chord fat glad original share station dad bread charge proper bar offer segment slave duck instant market degree populate chick dear enemy reply drink occur support speech nature range steam motion path liquid log meant quotient teeth shell neck'.split(
    ' ',
  );

/** The word the suite's update writes into the changed documents: never in the corpus. */
export const UPDATE_MARKER = 'amended';

/** A regular inflection of `word` (English spelling rules for a final e, y and s). */
function inflect(word, suffix) {
  if (suffix === 's')
    return /(s|x|sh|ch)$/.test(word) ? `${word}es` : /[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ies` : `${word}s`;
  const stem = word.endsWith('e')
    ? word.slice(0, -1)
    : /[^aeiou]y$/.test(word) && suffix !== 'ing'
      ? `${word.slice(0, -1)}i`
      : word;
  return `${stem}${suffix}`;
}

/** The vocabulary in rank order: the common words, then their inflections (each once). */
const VOCABULARY = (() => {
  const seen = new Set(COMMON);
  const out = [...COMMON];
  for (const suffix of ['s', 'ed', 'ing']) {
    // The first 150 are mostly function words ("between", "which"), which do not inflect.
    for (const word of COMMON.slice(150)) {
      const form = inflect(word, suffix);
      if (seen.has(form) || form === UPDATE_MARKER) continue;
      seen.add(form);
      out.push(form);
    }
  }
  return out;
})();

/** Cumulative Zipf (s = 1) weights over the vocabulary's ranks. */
const CUMULATIVE = (() => {
  const out = new Float64Array(VOCABULARY.length);
  let total = 0;
  for (let r = 0; r < VOCABULARY.length; r++) out[r] = total += 1 / (r + 1);
  for (let r = 0; r < out.length; r++) out[r] /= total;
  return out;
})();

function zipfWord(random) {
  const u = random();
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo];
}

/** ~`bytes` bytes of English sentences, the same for the same seed. */
export function englishText(seed, bytes = 1000) {
  const random = rng(seed * 2654435761 + 17);
  // A few rounds first: the generator's first outputs follow its seed closely.
  for (let i = 0; i < 4; i++) random();
  const sentences = [];
  let length = 0;
  while (length < bytes - 40) {
    const count = 6 + Math.floor(random() * 17);
    const words = [];
    for (let i = 0; i < count; i++) {
      let word = zipfWord(random);
      if (word === 'i') word = 'I';
      words.push(i > 2 && i < count - 2 && random() < 0.07 ? `${word},` : word);
    }
    words[0] = words[0].charAt(0).toUpperCase() + words[0].slice(1);
    const sentence = `${words.join(' ')}${random() < 0.1 ? '?' : '.'}`;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  return sentences.join(' ');
}

/** Lucene's English stop words (what the standard analyzer drops): never a query's term. */
const STOP = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/** The words of a text as the standard analyzer sees them (lowercase, no punctuation), stop words as ''. */
export function queryWords(text) {
  return text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean)
    .map((w) => (STOP.has(w) ? '' : w));
}
