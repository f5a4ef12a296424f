/**
 * Lucene 4's RomanianAnalyzer: standard tokens → lowercase → Romanian stop words (Savoy's list as
 * Lucene ships it) → Snowball's Romanian stemmer: `u`/`i` between vowels kept apart as consonants,
 * step 0 (plural and article endings in R1), combined suffixes reduced in R1 as long as one is,
 * a standard suffix in R2, else a verb ending in RV, then a final vowel in RV. The letters are the
 * cedilla forms `ş` and `ţ` (as Lucene 4's stemmer has them), not the comma-below `ș` and `ț`.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { Endings } from './snowball-among.js';
import { regionsOneTwo, romanceRegionV } from './snowball-regions.js';

export const ROMANIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `acea aceasta această aceea acei aceia acel acela acele acelea acest acesta aceste acestea aceşti aceştia
  acolo acum ai aia aibă aici al ăla ale alea ălea altceva altcineva am ar are aş aşadar asemenea asta
  ăsta astăzi astea ăstea ăştia asupra aţi au avea avem aveţi azi bine bucur bună ca că căci când care
  cărei căror cărui cât câte câţi către câtva ce cel ceva chiar cînd cine cineva cît cîte cîţi cîtva
  contra cu cum cumva curând curînd da dă dacă dar datorită de deci deja deoarece departe deşi din
  dinaintea dintr dintre drept după ea ei el ele eram este eşti eu face fără fi fie fiecare fii fim fiţi
  iar ieri îi îl îmi împotriva în înainte înaintea încât încît încotro între întrucât întrucît îţi la
  lângă le li lîngă lor lui mă mâine mea mei mele mereu meu mi mine mult multă mulţi ne nicăieri nici
  nimeni nişte noastră noastre noi noştri nostru nu ori oricând oricare oricât orice oricînd oricine
  oricît oricum oriunde până pe pentru peste pînă poate pot prea prima primul prin printr sa să săi sale
  sau său se şi sînt sîntem sînteţi spre sub sunt suntem sunteţi ta tăi tale tău te ţi ţie tine toată
  toate tot toţi totuşi tu un una unde undeva unei unele uneori unor vă vi voastră voastre voi voştri
  vostru vouă vreo vreun`.split(/\s+/),
);

export function romanianAnalyzer(stop: ReadonlySet<string> = ROMANIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), romanianStem);
}

const VOWELS = new Set('aeiouâîă');
const isVowel = (c: string | undefined) => c !== undefined && VOWELS.has(c);

/** Each ending of a space-separated list mapped to one replacement. */
function table(groups: readonly (readonly [string, string])[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [endings, replacement] of groups) for (const e of endings.split(/\s+/)) out[e] = replacement;
  return out;
}

/** Step 0: `-ile` after `ab` stays (the `ile` marker). */
const STEP_0 = table([
  ['ului ul', ''],
  ['aua', 'a'],
  ['ea ele elor', 'e'],
  ['iua iile iei ii ilor iilor', 'i'],
  ['ile', 'ile'],
  ['atei', 'at'],
  ['aţia aţie', 'aţi'],
]);
const COMBO = table([
  ['abilitate abilitati abilităi abilităţi', 'abil'],
  ['ibilitate', 'ibil'],
  ['ivitate ivitati ivităi ivităţi', 'iv'],
  [
    `icala iciva icale icitate icive icali icatori icitati icivi icităi icităţi ical icator iciv icală
    icivă`,
    'ic',
  ],
  ['ativa aţiune atoare ătoare ative atori ători ativi ator ător ativ ativă', 'at'],
  ['itiva iţiune itoare itive itori itivi itor itiv itivă', 'it'],
]);
const STANDARD = table([
  [
    `ica abila ibila oasa ata ita anta uta iva ic ice abile ibile oase ate itate ite ante ute ive ici abili
    ibili atori osi ati itati iti anti uti ivi ităi oşi ităţi abil ibil ator os at it ant ut iv ică abilă
    ibilă oasă ată ită antă ută ivă`,
    '',
  ],
  ['iune iuni', 'ţ'],
  ['ista isme iste isti işti ism ist istă', 'ist'],
]);
/** Verb endings removed only after a consonant or `u`. */
const VERB_AFTER_CONSONANT =
  `ea ia esc ăsc ind ând are ere ire âre ase ise use âse eşte ăşte eze ai eai iai eşti ăşti ui ezi
  âi aşi aseşi iseşi useşi âseşi işi uşi âşi eaţi iaţi arăţi aserăţi iserăţi userăţi âserăţi irăţi urăţi
  ârăţi am eam iam asem isem usem âsem arăm aserăm iserăm userăm âserăm irăm urăm ârăm au eau iau indu ându
  ez ească ară aseră iseră useră âseră iră ură âră ează`.split(/\s+/);
const VERB_ANYWHERE = `se sese sei seşi seseşi aţi eţi iţi âţi serăţi seserăţi em sesem im âm ăm serăm seserăm seră
  seseră`.split(/\s+/);
const VERB = new Endings([...VERB_AFTER_CONSONANT, ...VERB_ANYWHERE]);
const AFTER_CONSONANT = new Set(VERB_AFTER_CONSONANT);
const FINAL_VOWELS = new Endings(['a', 'e', 'ie', 'i', 'ă']);
const STEP_0_ENDINGS = new Endings(Object.keys(STEP_0));
const COMBO_ENDINGS = new Endings(Object.keys(COMBO));
const STANDARD_ENDINGS = new Endings(Object.keys(STANDARD));

export function romanianStem(word: string): string {
  let w = markedSemivowels(word);
  const rv = romanceRegionV(w, VOWELS);
  const { r1, r2 } = regionsOneTwo(w, VOWELS);
  const cut = (ending: string, replacement: string) => w.slice(0, w.length - ending.length) + replacement;

  const step0 = STEP_0_ENDINGS.longest(w);
  if (step0 !== undefined && w.length - step0.length >= r1 && !(step0 === 'ile' && w.endsWith('abile'))) {
    w = cut(step0, step0 === 'ile' ? 'i' : STEP_0[step0]!);
  }

  let standardRemoved = false;
  for (;;) {
    const combo = COMBO_ENDINGS.longest(w);
    if (combo === undefined || w.length - combo.length < r1) break;
    w = cut(combo, COMBO[combo]!);
    standardRemoved = true;
  }
  const standard = STANDARD_ENDINGS.longest(w);
  if (standard !== undefined && w.length - standard.length >= r2) {
    const replacement = STANDARD[standard]!;
    if (replacement !== 'ţ') {
      w = cut(standard, replacement);
      standardRemoved = true;
    } else if (w[w.length - standard.length - 1] === 'ţ') {
      w = `${cut(standard, '').slice(0, -1)}t`;
      standardRemoved = true;
    }
  }

  if (!standardRemoved) {
    const verb = VERB.longest(w, rv);
    if (verb !== undefined) {
      const at = w.length - verb.length;
      const before = at > rv ? w[at - 1] : undefined;
      if (!AFTER_CONSONANT.has(verb) || (before !== undefined && (!isVowel(before) || before === 'u'))) {
        w = w.slice(0, at);
      }
    }
  }

  const vowel = FINAL_VOWELS.longest(w);
  if (vowel !== undefined && w.length - vowel.length >= rv) w = w.slice(0, w.length - vowel.length);
  return w.replaceAll('I', 'i').replaceAll('U', 'u');
}

/** `u` and `i` between vowels are consonants: written `U`, `I` until the end. */
function markedSemivowels(word: string): string {
  const s = word.split('');
  for (let i = 0; i + 2 < s.length; i++) {
    if (isVowel(s[i]) && (s[i + 1] === 'u' || s[i + 1] === 'i') && isVowel(s[i + 2]))
      s[i + 1] = s[i + 1]!.toUpperCase();
  }
  return s.join('');
}
