/**
 * Lucene 4's CatalanAnalyzer: standard tokens → elided articles off (`d' l' m' n' s' t'`) →
 * lowercase → Catalan stop words (Lucene's list) → Snowball's Catalan stemmer: an attached
 * pronoun off in R1, then a standard suffix (in R1 or R2 by its kind) or, when there is none to
 * remove, a verb ending, then a residual vowel or ending in R1, and last the accents folded
 * (`à` → `a`, `·` → `.`).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { withoutElision } from './elision.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { Endings } from './snowball-among.js';
import { regionsOneTwo } from './snowball-regions.js';

export const CATALAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `a abans ací ah així això al als aleshores algun alguna algunes alguns alhora allà allí allò altra altre
  altres amb ambdós ambdues apa aquell aquella aquelles aquells aquest aquesta aquestes aquests aquí baix
  cada cadascú cadascuna cadascunes cadascuns com contra d'un d'una d'unes d'uns dalt de del dels des
  després dins dintre donat doncs durant e eh el els em en encara ens entre érem eren éreu es és esta està
  estàvem estaven estàveu esteu et etc ets fins fora gairebé ha han has havia he hem heu hi ho i igual
  iguals ja l'hi la les li li'n llavors m'he ma mal malgrat mateix mateixa mateixes mateixos me mentre més
  meu meus meva meves molt molta moltes molts mon mons n'he n'hi ne ni no nogensmenys només nosaltres
  nostra nostre nostres o oh oi on pas pel pels per però perquè poc poca pocs poques potser propi qual
  quals quan quant que què quelcom qui quin quina quines quins s'ha s'han sa semblant semblants ses seu
  seus seva seva seves si sobre sobretot sóc solament sols son són sons sota sou t'ha t'han t'he ta tal
  també tampoc tan tant tanta tantes teu teus teva teves ton tons tot tota totes tots un una unes uns us
  va vaig vam van vas veu vosaltres vostra vostre vostres`.split(/\s+/),
);

export const CATALAN_ARTICLES: ReadonlySet<string> = new Set(['d', 'l', 'm', 'n', 's', 't']);

export function catalanAnalyzer(stop: ReadonlySet<string> = CATALAN_STOP_WORDS): (text: string) => Token[] {
  return (text) =>
    snowballStemmed(
      withoutStopWords(lowercased(withoutElision(standardTokens(text), CATALAN_ARTICLES)), stop),
      catalanStem,
    );
}

const VOWELS = new Set('aeiouàáèéíïòóúü');
const list = (endings: string) => endings.split(/\s+/);

const PRONOUNS = new Endings(
  list(
    `la -la sela le me -me se -te hi 'hi li -li 'l 'm -m 'n -n ho 'ho lo selo 's las selas les -les 'ls
  -ls 'ns -ns ens los selos nos -nos vos us -us 't`,
  ),
);
type Region = 'r1' | 'r2';
/** Standard suffixes: the region each must start in, and what replaces it. */
const STANDARD = new Map<string, readonly [Region, string]>();
const standard = (endings: string, region: Region, replacement: string) => {
  for (const e of list(endings)) STANDARD.set(e, [region, replacement]);
};
standard(
  `enca ancia encia ència ícia inia íinia eria ària atòria alla ella ívola ima íssima ana ina era sfera
  ora dora adora adura esa osa assa essa issa eta ita ota ista ialista ionista iva ativa nça ístic enc
  esc ud atge ble able ible isme ialisme ionisme ivisme aire icte iste ici íci ari tori al il all ell
  ívol isam issem ìssem íssem íssim amen ìssin ar ificar egar ejar itar itzar fer or dor dur doras uds
  nces ancies encies ències ícies inies ínies eries àries atòries bles ables ibles imes íssimes formes
  ismes ialismes ines eres ores dores idores dures eses oses asses ictes ites otes istes ialistes
  ionistes ives atives allengües icis ícis aris toris ls als ells ims íssims ions cions esos osos
  assos issos ers ors dors adors idors ats itats bilitats ivitats ativitats ïtats ets ants ents ments
  aments ots uts ius trius atius ès és ís dís ós itat bilitat ivitat ativitat ïtat et ant ent ient
  ment ament isament ot isseu ìsseu ísseu triu íssiu atiu ó ió ció ació`,
  'r1',
  '',
);
standard('ada ades acions', 'r2', '');
standard('lógica logia logía logi lógics logies lógiques logíes logis', 'r2', 'log');
standard('ica ic ics iques', 'r2', 'ic');
standard('quíssima quíssim quíssimes quíssims', 'r1', 'c');
const STANDARD_ENDINGS = new Endings(STANDARD.keys());

/** Verb endings removed in R1, and `ando` in R2. */
const VERB = new Endings(
  list(
    `aba esca isca ïsca ada ida uda ïda ia aria iria ara iera ira adora ïra ava ixa itza ía aría ería
  iría ïa isc ïsc ad ed id ie re dre ase iese aste iste ii ini esqui eixi itzi am em arem irem àrem
  írem àssem éssem iguem ïguem avem àvem ávem irìem íem aríem iríem assim essim issim àssim èssim
  éssim íssim ïm an aban arian aran ieran iran ían arían erían irían en ien arien irien aren eren iren
  àren ïren asen iesen assen essen issen éssen ïssen esquen isquen ïsquen aven ixen eixen ïxen ïen in
  inin sin isin assin essin issin ïssin esquin eixin aron ieron arán erán irán iïn ado ido iendo io
  ixo eixo ïxo itzo ar tzar er eixer ir ador as abas adas idas aras ieras ías arías erías irías ids es
  ades ides udes ïdes atges ies aries iries ares ires adores ïres ases ieses asses esses isses ïsses
  ques esques ïsques aves ixes eixes ïxes ïes abais arais ierais íais aríais eríais iríais aseis
  ieseis asteis isteis inis sis isis assis essis issis ïssis esquis eixis itzis áis aréis eréis iréis
  ams ados idos amos ábamos áramos iéramos íamos aríamos eríamos iríamos aremos eremos iremos ásemos
  iésemos imos adors ass erass ess ats its ents às aràs iràs arás erás irás és arés ís iïs at it ant
  ent int ut ït au erau ieu ineu areu ireu àreu íreu asseu esseu eresseu àsseu ésseu igueu ïgueu àveu
  áveu itzeu ìeu irìeu íeu aríeu iríeu assiu issiu àssiu èssiu éssiu íssiu ïu ix eix ïx itz ià arà irà
  itzà ará erá irá irè aré eré iré í iï ió ando`,
  ),
);
const RESIDUAL = new Endings(list('a e i ïn o ir s is os ïs it eu iu itz à á é ì í ï ó iqu'));
const CLEANED: Readonly<Record<string, string>> = {
  à: 'a',
  á: 'a',
  è: 'e',
  é: 'e',
  ì: 'i',
  í: 'i',
  ï: 'i',
  ò: 'o',
  ó: 'o',
  ú: 'u',
  ü: 'u',
  '·': '.',
};

export function catalanStem(word: string): string {
  const { r1, r2 } = regionsOneTwo(word, VOWELS);
  let w = word;
  const startsIn = (ending: string, region: number) => w.length - ending.length >= region;
  const cut = (ending: string, replacement = '') => {
    w = w.slice(0, w.length - ending.length) + replacement;
  };

  const pronoun = PRONOUNS.longest(w);
  if (pronoun !== undefined && startsIn(pronoun, r1)) cut(pronoun);

  const suffix = STANDARD_ENDINGS.longest(w);
  const [region, replacement] = suffix === undefined ? ['r1', ''] : STANDARD.get(suffix)!;
  if (suffix !== undefined && startsIn(suffix, region === 'r1' ? r1 : r2)) cut(suffix, replacement);
  else {
    const verb = VERB.longest(w);
    if (verb !== undefined && startsIn(verb, verb === 'ando' ? r2 : r1)) cut(verb);
  }

  const residual = RESIDUAL.longest(w);
  if (residual !== undefined && startsIn(residual, r1)) cut(residual, residual === 'iqu' ? 'ic' : '');

  return [...w].map((c) => CLEANED[c] ?? c).join('');
}
