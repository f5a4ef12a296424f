import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldAnalyzers } from '../src/search/analyzers.js';
import { germanNormalized } from '../src/search/analyzers/german.js';
import { hungarianStem } from '../src/search/analyzers/hungarian.js';
import { indonesianStem } from '../src/search/analyzers/indonesian.js';
import { irishLowercased } from '../src/search/analyzers/irish.js';
import { portugueseLightStem } from '../src/search/analyzers/portuguese.js';

const terms = (analyzer: unknown, text: string) =>
  fieldAnalyzers(analyzer)
    .forField('f')(text)
    .map((t) => t.text);
const stem = (word: string) => {
  const units = word.split('');
  return units.slice(0, portugueseLightStem(units, units.length)).join('');
};

/** Each expectation is Lucene's (its analyzers' own tests), the chains being Lucene 4's. */
describe('language analyzers', () => {
  it("indonesian: stop words and Tala's stemmer (Lucene's TestIndonesianStemmer)", () => {
    const words =
      'bukukah adalah bukupun bukuku bukumu bukunya mengukur menyapu menduga menuduh membaca merusak pengukur penyapu penduga pembaca diukur tersapu kekasih berlari belajar bekerja perjelas pelajar pekerja tarikkan ambilkan mengambilkan makanan janjian perjanjian tandai dapati mendapati pantai penyalahgunaan menyalahgunakan disalahgunakan pertanggungjawaban mempertanggungjawabkan dipertanggungjawabkan pelaksanaan pelaksana melaksanakan dilaksanakan melibatkan terlibat penculikan menculik diculik penculik perubahan peledakan penanganan kepolisian kenaikan bersenjata penyelewengan kecelakaan gigi'.split(
        ' ',
      );
    const stems = [
      'buku',
      'ada',
      'buku',
      'buku',
      'buku',
      'buku',
      'ukur',
      'sapu',
      'duga',
      'uduh',
      'baca',
      'rusak',
      'ukur',
      'sapu',
      'duga',
      'baca',
      'ukur',
      'sapu',
      'kasih',
      'lari',
      'ajar',
      'kerja',
      'jelas',
      'ajar',
      'kerja',
      'tarik',
      'ambil',
      'ambil',
      'makan',
      'janji',
      'janji',
      'tanda',
      'dapat',
      'dapat',
      'panta',
      'salahguna',
      'salahguna',
      'salahguna',
      'tanggungjawab',
      'tanggungjawab',
      'tanggungjawab',
      'laksana',
      'laksana',
      'laksana',
      'laksana',
      'libat',
      'libat',
      'culik',
      'culik',
      'culik',
      'culik',
      'ubah',
      'ledak',
      'tangan',
      'polisi',
      'naik',
      'senjata',
      'seleweng',
      'celaka',
      'gigi',
    ];
    assert.deepEqual(
      words.map((word) => {
        const units = word.split('');
        return units.slice(0, indonesianStem(units, units.length)).join('');
      }),
      stems,
    );
    // Through the analyzer: `adalah` and `yang` are stop words.
    assert.deepEqual(terms('indonesian', 'Pelaksanaan yang adalah menculik'), ['laksana', 'culik']);
  });

  it("persian: normalization and stop words, no stemmer (Lucene's TestPersianAnalyzer)", () => {
    assert.deepEqual(terms('persian', 'خورده مي شده بوده باشد'), ['خورده']);
    assert.deepEqual(terms('persian', 'برگ ها'), ['برگ']);
    // A zero-width non-joiner separates words (PersianCharFilter).
    assert.deepEqual(terms('persian', 'برگ\u200Cها'), ['برگ']);
    // Keheh, Farsi yeh, heh goal are folded; so are the Arabic forms.
    assert.deepEqual(terms('persian', 'کتابی'), ['كتابي']);
    assert.deepEqual(terms('persian', 'English test.'), ['english', 'test']);
  });

  it("arabic: stop words, normalization and the light stemmer (Lucene's TestArabicAnalyzer, TestArabicStemFilter)", () => {
    const cases: [string, string[]][] = [
      ['كبير', ['كبير']],
      ['كبيرة', ['كبير']],
      ['مشروب', ['مشروب']],
      ['مشروبات', ['مشروب']],
      ['أمريكيين', ['امريك']],
      ['امريكي', ['امريك']],
      ['كتاب', ['كتاب']],
      ['الكتاب', ['كتاب']],
      ['ما ملكت أيمانكم', ['ملكت', 'ايمانكم']],
      ['الذين ملكت أيمانكم', ['ملكت', 'ايمانكم']],
      ['English text.', ['english', 'text']],
      ['الحسن', ['حسن']],
      ['والحسن', ['حسن']],
      ['بالحسن', ['حسن']],
      ['كالحسن', ['حسن']],
      ['فالحسن', ['حسن']],
      ['للاخر', ['اخر']],
      ['وحسن', ['حسن']],
      ['زوجها', ['زوج']],
      ['ساهدان', ['ساهد']],
      ['ساهدات', ['ساهد']],
      ['ساهدون', ['ساهد']],
      ['ساهدين', ['ساهد']],
      ['ساهديه', ['ساهد']],
      ['ساهدية', ['ساهد']],
      ['ساهده', ['ساهد']],
      ['ساهدة', ['ساهد']],
      ['ساهدي', ['ساهد']],
      ['وساهدون', ['ساهد']],
      ['ساهدهات', ['ساهد']],
      ['الو', ['الو']],
    ];
    for (const [text, expected] of cases) assert.deepEqual(terms('arabic', text), expected, text);
    // Harakat and tatweel go; a custom stop list replaces Savoy's.
    assert.deepEqual(terms('arabic', 'كَبِيـرٌ'), ['كبير']);
    assert.deepEqual(terms({ name: 'arabic', stopwords: ['the', 'and', 'a'] }, 'The quick brown fox.'), [
      'quick',
      'brown',
      'fox',
    ]);
  });

  it("bulgarian: stop words and the light stemmer (Lucene's TestBulgarianStemmer)", () => {
    const words =
      'град града градът градове градовете народ народа народът народи народите народе път пътя пътят пътища пътищата градец градеца градецът градовце градовцете дядо дядото дядовци дядовците мъж мъжа мъже мъжете мъжо мъжът крак крака кракът краката брат брата братът братя братята брате вест вестта вести вестите дърво дървото дърва дървета дървата дърветата море морето морета моретата изключение изключението изключенията изключения красив красивия красивият красива красивата красиво красивото красиви красивите собственик собственика собственикът собственици собствениците подлог подлога подлогът подлози подлозите кожух кожуха кожухът кожуси кожусите център центъра центърът центрове центровете промяна промяната промени промените песен песента песни песните строй строеве строевете строя строят'.split(
        ' ',
      );
    const stems = [
      'град',
      'град',
      'град',
      'град',
      'град',
      'народ',
      'народ',
      'народ',
      'народ',
      'народ',
      'народ',
      'път',
      'път',
      'път',
      'път',
      'път',
      'градец',
      'градец',
      'градец',
      'градовц',
      'градовц',
      'дяд',
      'дяд',
      'дяд',
      'дяд',
      'мъж',
      'мъж',
      'мъж',
      'мъж',
      'мъж',
      'мъжът',
      'крак',
      'крак',
      'крак',
      'крак',
      'брат',
      'брат',
      'брат',
      'брат',
      'брат',
      'брат',
      'вест',
      'вест',
      'вест',
      'вест',
      'дърв',
      'дърв',
      'дърв',
      'дърв',
      'дърв',
      'дърв',
      'мор',
      'мор',
      'мор',
      'мор',
      'изключени',
      'изключени',
      'изключени',
      'изключн',
      'красив',
      'красив',
      'красив',
      'красив',
      'красив',
      'красив',
      'красив',
      'красив',
      'красив',
      'собственик',
      'собственик',
      'собственик',
      'собственик',
      'собственик',
      'подлог',
      'подлог',
      'подлог',
      'подлог',
      'подлог',
      'кожух',
      'кожух',
      'кожух',
      'кожух',
      'кожух',
      'центр',
      'центр',
      'центр',
      'центр',
      'центр',
      'промян',
      'промян',
      'промян',
      'промян',
      'песн',
      'песн',
      'песн',
      'песн',
      'строй',
      'строй',
      'строй',
      'стр',
      'стр',
    ];
    assert.deepEqual(
      words.map((word) => terms('bulgarian', word)[0]),
      stems,
    );
    assert.deepEqual(terms('bulgarian', 'аз и ти градовете'), ['град']);
  });

  it("czech: stop words and the light stemmer (Lucene's TestCzechStemmer)", () => {
    const words =
      'pán páni pánové pána pánů pánovi pánům pány páne pánech pánem hrad hradu hrade hradem hrady hradech hradům hradů muž muži muže mužů mužům mužích mužem stroj stroje strojů stroji strojům strojích strojem předseda předsedové předsedy předsedů předsedovi předsedům předsedu předsedo předsedech předsedou soudce soudci soudců soudcům soudcích soudcem kost kosti kostí kostem kostech kostmi píseň písně písni písněmi písních písním růže růží růžím růžích růžemi růži žena ženy žen ženě ženám ženu ženo ženách ženou ženami město města měst městu městům městě městech městem městy moře moří mořím moři mořích mořem kuře kuřata kuřete kuřat kuřeti kuřatům kuřatech kuřetem kuřaty stavení stavením staveních staveními mladý mladí mladého mladých mladému mladým mladé mladém mladými mladá mladou jarní jarního jarních jarnímu jarním jarními Karlův jazykový český čeští anglický angličtí kniha knize mazat mažu kluk kluci klucích hezký hezčí hůl hole deska desek e zi'.split(
        ' ',
      );
    const stems = [
      'pán',
      'pán',
      'pán',
      'pán',
      'pán',
      'pán',
      'pán',
      'pán',
      'pán',
      'pán',
      'pán',
      'hrad',
      'hrad',
      'hrad',
      'hrad',
      'hrad',
      'hrad',
      'hrad',
      'hrad',
      'muh',
      'muh',
      'muh',
      'muh',
      'muh',
      'muh',
      'muh',
      'stroj',
      'stroj',
      'stroj',
      'stroj',
      'stroj',
      'stroj',
      'stroj',
      'předsd',
      'předsd',
      'předsd',
      'předsd',
      'předsd',
      'předsd',
      'předsd',
      'předsd',
      'předsd',
      'předsd',
      'soudk',
      'soudk',
      'soudk',
      'soudk',
      'soudk',
      'soudk',
      'kost',
      'kost',
      'kost',
      'kost',
      'kost',
      'kost',
      'písň',
      'písn',
      'písn',
      'písn',
      'písn',
      'písn',
      'růh',
      'růh',
      'růh',
      'růh',
      'růh',
      'růh',
      'žn',
      'žn',
      'žn',
      'žn',
      'žn',
      'žn',
      'žn',
      'žn',
      'žn',
      'žn',
      'měst',
      'měst',
      'měst',
      'měst',
      'měst',
      'měst',
      'měst',
      'měst',
      'měst',
      'moř',
      'moř',
      'moř',
      'moř',
      'moř',
      'moř',
      'kuř',
      'kuř',
      'kuř',
      'kuř',
      'kuř',
      'kuř',
      'kuř',
      'kuř',
      'kuř',
      'stavn',
      'stavn',
      'stavn',
      'stavn',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'mlad',
      'jarn',
      'jarn',
      'jarn',
      'jarn',
      'jarn',
      'jarn',
      'karl',
      'jazyk',
      'česk',
      'česk',
      'anglick',
      'anglick',
      'knih',
      'knih',
      'mah',
      'mah',
      'kluk',
      'kluk',
      'kluk',
      'hezk',
      'hezk',
      'hol',
      'hol',
      'desk',
      'desk',
      'e',
      'zi',
    ];
    assert.deepEqual(
      words.map((word) => terms('czech', word)[0]),
      stems,
    );
    assert.deepEqual(terms('czech', 'já jsem tady'), ['tad']);
  });

  it('french: elision, lowercase, stop words, the light stemmer', () => {
    assert.deepEqual(terms('french', 'chien CHAT CHEVAL'), ['chien', 'chat', 'cheval']);
    assert.deepEqual(terms('french', 'mot "entreguillemet"'), ['mot', 'entreguilemet']);
    assert.deepEqual(terms('french', 'Jean-François'), ['jean', 'francoi']);
    assert.deepEqual(terms('french', 'le la chien les aux chat du des à cheval'), ['chien', 'chat', 'cheval']);
    assert.deepEqual(terms('french', 'lances chismes habitable chiste éléments captifs'), [
      'lanc',
      'chism',
      'habitabl',
      'chist',
      'element',
      'captif',
    ]);
    assert.deepEqual(terms('french', 'finissions souffrirent rugissante'), ['finision', 'soufrirent', 'rugisant']);
    assert.deepEqual(terms('french', "C3PO aujourd'hui oeuf ïâöûàä anticonstitutionnellement Java++ "), [
      'c3po',
      "aujourd'hui",
      'oeuf',
      'ïaöuaä',
      'anticonstitutionel',
      'java',
    ]);
    assert.deepEqual(terms('french', '33Bis 1940-1945 1940:1945 (---i+++)*'), [
      '33bi',
      '1940',
      '1945',
      '1940',
      '1945',
      'i',
    ]);
    assert.deepEqual(terms('french', "voir l'embrouille"), ['voir', 'embrouil']);
    assert.deepEqual(terms('french', 'Votre'), []);
    assert.deepEqual(terms('french', 'sécuritaires securitaires'), ['securitair', 'securitair']);
  });

  it('german: normalization (umlauts, ae/oe/ue, ß) and the light stemmer', () => {
    assert.deepEqual(terms('german', 'Tisch Tische Tischen'), ['tisch', 'tisch', 'tisch']);
    assert.deepEqual(terms('german', 'Schaltflächen Schaltflaechen'), ['schaltflach', 'schaltflach']);
    assert.deepEqual(terms('german', 'und der die das'), []);
    assert.equal(germanNormalized('Schaltflächen'), 'Schaltflachen');
    assert.equal(germanNormalized('Schaltflaechen'), 'Schaltflachen');
    assert.equal(germanNormalized('dauer'), 'dauer');
    assert.equal(germanNormalized('weißbier'), 'weissbier');
  });

  it('spanish: stop words and the light stemmer', () => {
    assert.deepEqual(terms('spanish', 'chicana chicano'), ['chican', 'chican']);
    assert.deepEqual(terms('spanish', 'los'), []);
  });

  it('italian: elision, stop words and the light stemmer', () => {
    assert.deepEqual(terms('italian', 'abbandonata abbandonati'), ['abbandonat', 'abbandonat']);
    assert.deepEqual(terms('italian', 'dallo'), []);
    assert.deepEqual(terms('italian', "dell'Italia"), ['ital']);
    assert.deepEqual(terms('italian', "l'Italiano"), ['italian']);
  });

  it("portuguese: stop words and the light stemmer (Savoy's examples)", () => {
    assert.deepEqual(terms('portuguese', 'quilométricas quilométricos'), ['quilometric', 'quilometric']);
    assert.deepEqual(terms('portuguese', 'não'), []);
    const words =
      'o debate político pelo menos o que vem a público parece de modo nada surpreendente restrito a temas menores mas há evidentemente grandes questões em jogo nas eleições que se aproximam';
    assert.deepEqual(
      words.split(' ').map(stem),
      'o debat politic pelo meno o que vem a public parec de modo nada surpreendent restrit a tema menor mas há evident grand questa em jogo nas eleica que se aproximam'.split(
        ' ',
      ),
    );
    const pairs = [
      ['doutores', 'doutor'],
      ['homens', 'homem'],
      ['papéis', 'papel'],
      ['normais', 'normal'],
      ['lencóis', 'lencol'],
      ['barris', 'barril'],
      ['botões', 'bota'],
      ['botão', 'bota'],
    ];
    for (const [word, expected] of pairs) assert.equal(stem(word!), expected, word);
  });

  it('russian: stop words and the Snowball stemmer', () => {
    assert.deepEqual(terms('russian', 'Вместе с тем о силе электромагнитной энергии имели представление еще'), [
      'вмест',
      'сил',
      'электромагнитн',
      'энерг',
      'имел',
      'представлен',
    ]);
    assert.deepEqual(terms('russian', 'Но знание это хранилось в тайне'), ['знан', 'эт', 'хран', 'тайн']);
    assert.deepEqual(terms('russian', 'text 1000'), ['text', '1000']);
  });

  it('danish: stop words and the Snowball stemmer', () => {
    // TestDanishAnalyzer's words, then Snowball's Danish sample vocabulary.
    assert.deepEqual(terms('danish', 'undersøg undersøgelse på'), ['undersøg', 'undersøg']);
    const cases: [string, string][] = [
      ['indtage', 'indtag'],
      ['indtagelse', 'indtag'],
      ['indtager', 'indtag'],
      ['indtages', 'indtag'],
      ['indtaget', 'indtag'],
      ['indtil', 'indtil'],
      ['indtræde', 'indtræd'],
      ['indtræder', 'indtræd'],
      ['indtræffe', 'indtræf'],
      ['indtræffer', 'indtræf'],
      ['indtryk', 'indtryk'],
      // `-igst` → `-ig`, then `-ig` off; `-løst` → `-løs`; a short word keeps its ending (R1 starts at 3).
      ['vigtigst', 'vigt'],
      ['kærløst', 'kærløs'],
      ['ene', 'ene'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('danish', word), [expected], word);
  });

  it('swedish: stop words and the Snowball stemmer', () => {
    // TestSwedishAnalyzer's words, then endings of Snowball's Swedish stemmer.
    assert.deepEqual(terms('swedish', 'jaktkarlarne jaktkarlens och'), ['jaktkarl', 'jaktkarl']);
    const cases: [string, string][] = [
      ['jackorna', 'jack'],
      ['jackornas', 'jack'],
      ['klokheten', 'klok'],
      ['klokaste', 'klok'],
      ['hopplöst', 'hopplös'],
      ['skönhetsfullt', 'skönhetsfull'],
      ['kattens', 'katt'],
      ['bussen', 'buss'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('swedish', word), [expected], word);
  });

  it('norwegian: stop words and the Snowball stemmer', () => {
    // TestNorwegianAnalyzer's words, then endings of Snowball's Norwegian stemmer.
    assert.deepEqual(terms('norwegian', 'havnedistriktene havnedistrikter det'), ['havnedistrikt', 'havnedistrikt']);
    const cases: [string, string][] = [
      ['havnedistriktets', 'havnedistrikt'],
      // `-erte`/`-ert` → `-er`; other endings only once, the longest in R1.
      ['studerte', 'studer'],
      ['studert', 'studer'],
      ['hetslov', 'het'],
      ['kjærlighetslov', 'kjærlig'],
      ['parks', 'park'],
      ['verdt', 'verd'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('norwegian', word), [expected], word);
  });

  it('finnish: stop words and the Snowball stemmer', () => {
    // TestFinnishAnalyzer's words, then words of Snowball's Finnish sample vocabulary with its outputs.
    assert.deepEqual(terms('finnish', 'edeltäjiinsä edeltäjistään olla'), ['edeltäj', 'edeltäj']);
    const cases: [string, string][] = [
      ['aagot', 'aago'],
      ['aakkoset', 'aakkos'],
      ['aakkosjärjestykseen', 'aakkosjärjestyks'],
      ['aakkosten', 'aakkost'],
      ['aakkulalle', 'aakkul'],
      ['aakoo', 'aako'],
      ['aalloilla', 'aalo'],
      ['aallokko', 'aalloko'],
      ['aallokkoon', 'aalloko'],
      ['aallon', 'aalo'],
      ['aallot', 'aalo'],
      ['aaltoihin', 'aalto'],
      ['aaltoilee', 'aaltoil'],
      ['aaltojärvi', 'aaltojärv'],
      ['aaltomaa', 'aaltom'],
      ['aaltonen', 'aalton'],
      ['aaltopituudella', 'aaltopituud'],
      ['aaltosta', 'aalto'],
      ['aaltovirta', 'aaltovir'],
      ['aamen', 'aame'],
      ['aamiainen', 'aamiain'],
      ['aamiaispöytään', 'aamiaispöy'],
      ['aamiaista', 'aamia'],
      ['aamuauringon', 'aamuauringo'],
      ['aamuin', 'aamu'],
      ['aamuinen', 'aamuin'],
      ['aamuista', 'aamu'],
      ['aamukahdeksaan', 'aamukahdeks'],
      ['aamukuuteen', 'aamukuut'],
      ['aamullakello', 'aamullakelo'],
      ['aamullaparhain', 'aamullaparh'],
      ['aamunkoitteessa', 'aamunkoit'],
      ['aamunsa', 'aamu'],
      ['aamupimeässä', 'aamupimeä'],
      ['aamupuurolle', 'aamupuuro'],
      ['aamutakkeja', 'aamutak'],
      ['aamutunneille', 'aamutun'],
      ['aapista', 'aap'],
      ['aappo', 'aapo'],
      ['aardman', 'aardm'],
      ['aardmanin', 'aardman'],
      ['aaretti', 'aaret'],
      ['aaria', 'aar'],
      ['aariaa', 'aaria'],
      ['aarille', 'aar'],
      ['aarni', 'aar'],
      ['aarre', 'aar'],
      ['aarretta', 'aar'],
      ['aarteeksi', 'aart'],
      ['aarteensa', 'aart'],
      ['aarteillaan', 'aart'],
      ['aasialaista', 'aasial'],
      ['aasianleijona', 'aasianleij'],
      ['aasinsa', 'aasi'],
      ['aatoksi', 'aato'],
      ['aatonaatto', 'aatonaato'],
      ['aatteellista', 'aatteel'],
      ['aatteeseensa', 'aattees'],
      ['aatteetovat', 'aatteetov'],
      ['aattoiltaan', 'aato'],
      ['aattonakin', 'aato'],
      ['aattoyönä', 'aatoyö'],
      ['aavistaakaan', 'aavist'],
      ['aavistamaton', 'aavistamato'],
      ['aavistanut', 'aavistanu'],
      ['aavistaneet', 'aavistan'],
      ['aavikkoralli', 'aavikkoral'],
      ['edeltäjiinsä', 'edeltäj'],
      ['edeltäjistään', 'edeltäj'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('finnish', word), [expected], word);
  });

  it('hungarian: stop words and the Snowball stemmer', () => {
    // TestHungarianAnalyzer's words, then words of Snowball's Hungarian sample vocabulary with its outputs.
    assert.deepEqual(terms('hungarian', 'babakocsi babakocsijáért által'), ['babakocs', 'babakocs']);
    const cases: [string, string][] = [
      ['játékosnak', 'játékos'],
      ['játékosokat', 'játékos'],
      ['játékosokból', 'játékos'],
      ['játékosaira', 'játékos'],
      ['játékosának', 'játékos'],
      ['játékosságából', 'játékosság'],
      ['játékprogram', 'játékprogr'],
      ['játékprogramja', 'játékprogram'],
      ['játékterembe', 'játékter'],
      ['játéktermekben', 'játékterm'],
      ['jázmin', 'jázm'],
      ['jégfelületén', 'jégfelület'],
      ['jéggé', 'jég'],
      ['jégkrémet', 'jégkre'],
      ['jégpályai', 'jégpály'],
      ['jégszekrénnyel', 'jégszekrény'],
      ['jóakaratból', 'jóakarat'],
      ['jóakarattal', 'jóakar'],
      ['jobbal', 'job'],
      ['jobban', 'job'],
      ['jobbat', 'jobb'],
      ['jobbjával', 'jobb'],
      ['jobbá', 'job'],
      ['jóban-rosszban', 'jóban-rossz'],
      ['jóbarát', 'jóbar'],
      ['jócskán', 'jócs'],
      ['jókedvvel', 'jókedv'],
      ['jókedvükben', 'jókedv'],
      ['jókorák', 'jókora'],
      ['jóllakik', 'jóll'],
      ['jólét', 'jól'],
      ['jómódban', 'jómó'],
      ['jósolják', 'jósolja'],
      ['jósolta', 'jósolt'],
      ['jószándékkal', 'jószánde'],
      ['jószerencse', 'jószerencs'],
      ['józan', 'józ'],
      ['jóéjszakát', 'jóéjsz'],
      ['jöjjenek', 'jöj'],
      ['jönnöm', 'jönnö'],
      ['jönnénk', 'jönne'],
      ['jövedelmet', 'jövedel'],
      ['jövedelem', 'jövedel'],
      ['jövedéki', 'jövede'],
      ['jövet', 'jöv'],
    ];
    // The stemmer alone: `jobban` is also a stop word.
    for (const [word, expected] of cases) assert.equal(hungarianStem(word), expected, word);
  });

  it('irish: hyphenation particles, elision, Irish lowercase, stop words and the Snowball stemmer', () => {
    // TestIrishAnalyzer's and TestIrishLowerCaseFilter's cases.
    assert.deepEqual(terms('irish', 'siopadóireacht síceapatacha le'), ['siopadóir', 'síceapaite']);
    assert.deepEqual(terms('irish', "b'fhearr m'athair"), ['fearr', 'athair']);
    // `n-athair` is two tokens: the `n` goes and its position stays empty.
    assert.deepEqual(fieldAnalyzers('irish').forField('f')('n-athair'), [{ text: 'athair', position: 1 }]);
    assert.deepEqual(
      irishLowercased([
        { text: 'nAthair', position: 0 },
        { text: 'tUISCE', position: 1 },
        { text: 'hARD', position: 2 },
      ]).map((t) => t.text),
      ['n-athair', 't-uisce', 'hard'],
    );
  });

  it('dutch: stop words, the stem overrides and the Snowball stemmer', () => {
    const cases: [string, string][] = [
      ['lichaamsziek', 'lichaamsziek'],
      ['lichamelijk', 'licham'],
      ['lichamelijke', 'licham'],
      ['lichamelijkheden', 'licham'],
      ['lichamen', 'licham'],
      ['lichere', 'licher'],
      ['lichtdoorlatende', 'lichtdoorlat'],
      ['lichte', 'licht'],
      ['lichten', 'licht'],
      ['lichtende', 'lichtend'],
      ['lichtenvoorde', 'lichtenvoord'],
      ['lichtere', 'lichter'],
      ['lichters', 'lichter'],
      ['lichtgevoeligheid', 'lichtgevoel'],
      ['lichthoeveelheid', 'lichthoevel'],
      ['lichtje', 'lichtj'],
      ['lichtjes', 'lichtjes'],
      ['lichtkranten', 'lichtkrant'],
      ['lichtregelsystemen', 'lichtregelsystem'],
      ['lichtste', 'lichtst'],
      ['lichtstromende', 'lichtstrom'],
      ['lichtte', 'licht'],
      ['lichtten', 'licht'],
      ['lichttoetreding', 'lichttoetred'],
      ['lichtzinnige', 'lichtzinn'],
      ['lidia', 'lidia'],
      ['lidstaten', 'lidstat'],
      ['lidvereniging', 'lidveren'],
      ['opglimpende', 'opglimp'],
      ['opgroeiplaats', 'opgroeiplat'],
      ['ophaal', 'ophal'],
      ['ophaalkosten', 'ophaalkost'],
      ['ophalend', 'ophal'],
      ['ophalers', 'ophaler'],
      ['ophemelde', 'ophemeld'],
      ['ophoog', 'ophog'],
      ['ophoping', 'ophop'],
      ['opheffen', 'opheff'],
      ['opheffende', 'opheff'],
      ['opheffing', 'opheff'],
      ['fiets', 'fiets'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('dutch', word), [expected], word);
    assert.deepEqual(terms('dutch', 'Zelf'), []);
  });

  it("own stop words replace the language's", () => {
    assert.deepEqual(terms({ name: 'french', stopwords: ['chien'] }, 'le chien'), ['le']);
  });
});
