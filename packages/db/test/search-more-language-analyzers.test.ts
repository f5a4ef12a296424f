import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldAnalyzers } from '../src/search/analyzers.js';
import { hindiStem } from '../src/search/analyzers/hindi.js';

const terms = (analyzer: unknown, text: string) =>
  fieldAnalyzers(analyzer)
    .forField('f')(text)
    .map((t) => t.text);
/** Terms with their positions, `term@position`, as a phrase query sees them. */
const placed = (analyzer: unknown, text: string) =>
  fieldAnalyzers(analyzer)
    .forField('f')(text)
    .map((t) => `${t.text}@${t.position}`)
    .join(' ');

/**
 * Each expectation is Lucene's: its analyzers' own test cases, or what Lucene's analyzer of that
 * name (built for version 4.6, as Clouseau builds it) makes of Snowball's published sample words.
 */
describe('more language analyzers', () => {
  it("thai: words cut by a dictionary, stop words out, each word its position (Lucene's TestThaiAnalyzer)", () => {
    assert.equal(placed('thai', 'การที่ได้ต้องแสดงว่างานดี'), 'แสดง@4 งาน@6 ดี@7');
    assert.equal(placed('thai', 'บริษัทชื่อ XY&Z - คุยกับ xyz@demo.com'), 'บริษัท@0 ชื่อ@1 xy@2 z@3 คุย@4 xyz@6 demo.com@7');
    assert.equal(placed('thai', 'ข้อความทดสอบการตัดคำภาษาไทย'), 'ข้อความ@0 ทดสอบ@1 ตัด@3 คำ@4 ภาษา@5 ไทย@6');
    assert.equal(
      placed('thai', 'English text mixed กับภาษาไทย 123 ABC'),
      'english@0 text@1 mixed@2 ภาษา@4 ไทย@5 123@6 abc@7',
    );
    assert.equal(placed('thai', 'นักเรียนไปโรงเรียนทุกวัน'), 'นักเรียน@0 โรงเรียน@2');
    assert.equal(placed('thai', 'คอมพิวเตอร์และโทรศัพท์มือถือ'), 'คอมพิวเตอร์@0 โทรศัพท์@2 มือ@3 ถือ@4');
    // Own stop words replace Lucene's list.
    assert.deepEqual(terms({ name: 'thai', stopwords: ['งาน'] }, 'การที่ได้ต้องแสดงว่างานดี'), [
      'การ',
      'ที่',
      'ได้',
      'ต้อง',
      'แสดง',
      'ว่า',
      'ดี',
    ]);
  });

  it("armenian: stop words and Snowball's Armenian stemmer (Lucene's TestArmenianAnalyzer, then Lucene's stems)", () => {
    const cases: [string, string][] = [
      ['արծիվ', 'արծ'],
      ['արծիվներ', 'արծ'],
      ['գրքերը', 'գրքերը'],
      ['քաղաքներում', 'քաղ'],
      ['ուսանողներին', 'ուսանող'],
      ['գեղեցիկ', 'գեղեց'],
      ['աշխատանքները', 'աշխ'],
      ['երեխաներով', 'երեխ'],
      ['տներից', 'տներից'],
      ['մարդկանց', 'մարդկ'],
      ['համալսարանի', 'համալսար'],
      ['գրել', 'գրել'],
      ['գրեցի', 'գրե'],
      ['խոսում', 'խոս'],
      ['հայաստանի', 'հայաստ'],
      ['լեզուն', 'լեզուն'],
      ['ժողովուրդը', 'ժողովուրդ'],
      ['պատմությունը', 'պատմ'],
      // Made-up words through every table: a long ending passed over when it reaches before the first vowel.
      ['քաղաքացրինք', 'քաղա'],
      ['տունվեցիերդ', 'տուն'],
      ['երեխատելալիս', 'երեխատել'],
      ['քաղաքեցվելավ', 'քաղաքեցվել'],
      ['սիրվեցիրացրի', 'սիրվեցիրացր'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('armenian', word), [expected], word);
    assert.deepEqual(terms('armenian', 'մենք ենք այս'), []);
  });

  it("romanian: stop words and Snowball's Romanian stemmer (Lucene's TestRomanianAnalyzer, then Snowball's sample words)", () => {
    // Snowball's Romanian vocabulary (cedilla letters), each with Lucene's stem.
    const cases: [string, string][] = [
      ['abajurul', 'abajur'],
      ['abandoneze', 'abandon'],
      ['abatere', 'abat'],
      ['abătută', 'abăt'],
      ['abătuţi', 'abătuţ'],
      ['aberaţie', 'aber'],
      ['aberaţii', 'aber'],
      ['aberaţiune', 'aber'],
      ['aberaţiuni', 'aberat'],
      ['abilă', 'abil'],
      ['abile', 'abil'],
      ['abilitate', 'abil'],
      ['abilitatea', 'abil'],
      ['abnegaţie', 'abneg'],
      ['abonamentul', 'abonament'],
      ['absenţa', 'absenţ'],
      ['absenţă', 'absenţ'],
      ['absenţi', 'absenţ'],
      ['absoluta', 'absol'],
      ['absolutului', 'absol'],
      ['absolvenţii', 'absolvenţ'],
      ['absolvire', 'absolv'],
      ['absolviţi', 'absolv'],
      ['absorbţia', 'absorbţ'],
      ['abstractizare', 'abstractiz'],
      ['abstractizăm', 'abstractiz'],
      ['abstracţiune', 'abstract'],
      ['abstracţiuni', 'abstract'],
      ['absurdităţi', 'absurd'],
      ['absurdităţilor', 'absurd'],
      ['abţinere', 'abţin'],
      ['aburitoare', 'abur'],
      ['aburoase', 'abur'],
      ['abuzez', 'abuz'],
      ['abuziv', 'abuz'],
      ['acceptabile', 'accept'],
      ['acceptând', 'accept'],
      ['accesibile', 'accesib'],
      ['accesorii', 'accesor'],
      ['accidentul', 'accident'],
      ['aceeaşi', 'aceeaş'],
      ['acelaşti', 'acelaşt'],
      ['aceleiaşi', 'acelei'],
      ['achiziţionarea', 'achiziţion'],
      ['achiziţionării', 'achiziţionăr'],
      ['acoperindu', 'acoper'],
      ['acoperişurile', 'acoperişur'],
      ['acoperitor', 'acoper'],
      ['activitate', 'activ'],
      ['activitatea', 'activ'],
      ['activităţi', 'activ'],
      ['activităţii', 'activ'],
      ['actriţă', 'actriţ'],
      ['actualitatea', 'actual'],
      ['actualităţii', 'actual'],
      ['actualizare', 'actualiz'],
      ['acţionari', 'acţionar'],
      ['acţionează', 'acţion'],
      ['acţiunile', 'acţiun'],
      ['adaptabile', 'adapt'],
      ['adâncească', 'adânc'],
      ['adâncituri', 'adâncitur'],
      ['adâncurilor', 'adâncur'],
      ['adăposteşte', 'adăpost'],
      ['adevăratei', 'adevăr'],
      ['adevărurilor', 'adevărur'],
      ['adevereşte', 'adever'],
      ['administrativă', 'administr'],
      ['administraţiei', 'administr'],
      ['admirabilei', 'admirabile'],
      ['admirativă', 'admir'],
      ['admiratorilor', 'admir'],
      ['admiraţiile', 'admir'],
      ['adunărilor', 'adunăr'],
      ['adunătură', 'adunăt'],
      ['afirmaţiunilor', 'afirmat'],
      ['afirmării', 'afirmăr'],
      ['afurisiţii', 'afuris'],
      ['aghiotantului', 'aghiot'],
      ['agitatorilor', 'agit'],
      ['alimentarei', 'alimentare'],
      ['alimentării', 'alimentăr'],
      ['alunecările', 'alunecăr'],
      ['amărăciunile', 'amărăciun'],
      ['ameninţătoare', 'ameninţ'],
      ['ameninţători', 'ameninţ'],
      ['anahronismele', 'anahronist'],
      ['aplicabilităţii', 'aplic'],
      ['aprovizionările', 'aprovizionăr'],
      ['argumentelor', 'argument'],
      ['aristocratizante', 'aristocratiz'],
      ['ascultătorului', 'ascult'],
      ['aşteptările', 'aşteptăr'],
      ['autenticităţii', 'autent'],
      ['automobilelor', 'automobil'],
      ['autorităţii', 'autor'],
      ['avangărzii', 'avangărz'],
      ['avanposturile', 'avanpostur'],
      ['absenţa', 'absenţ'],
      ['absenţi', 'absenţ'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('romanian', word), [expected], word);
    assert.deepEqual(terms('romanian', 'aceasta este o carte'), ['o', 'cart']);
  });

  it("catalan: elision, stop words and Snowball's Catalan stemmer (Lucene's TestCatalanAnalyzer, then Lucene's stems)", () => {
    const cases: [string, string][] = [
      ['llengües', 'llengu'],
      ['llengua', 'llengu'],
      ['catalanes', 'catalan'],
      ['universitat', 'univer'],
      ['universitats', 'univer'],
      ['ciutadans', 'ciutadan'],
      ['parlàvem', 'parl'],
      ['cantaríem', 'cant'],
      ['escriviríeu', 'escriv'],
      ['menjant', 'menj'],
      ['dormiria', 'dorm'],
      ['col·lecció', 'col.lec'],
      ['col·leccions', 'col.lec'],
      ['biològiques', 'biologic'],
      ['lògica', 'logic'],
      ['riquíssima', 'riquissim'],
      ['importància', 'importanc'],
      ['nacionalitat', 'nacional'],
      ['treballadors', 'treball'],
      ['treballaven', 'treball'],
      ['democràtiques', 'democratic'],
      ["dóna'm", 'don'],
      ["menja'l", 'menj'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('catalan', word), [expected], word);
    assert.equal(
      placed('catalan', "Diccionari de l'Institut d'Estudis Catalans"),
      'diccion@0 inst@2 estud@3 catalan@4',
    );
    assert.equal(placed('catalan', 'un home i una dona'), 'hom@1 don@4');
  });

  it("basque: stop words and Snowball's Basque stemmer (Lucene's TestBasqueAnalyzer, then Lucene's stems)", () => {
    const cases: [string, string][] = [
      ['zaldi', 'zaldi'],
      ['zaldiak', 'zaldi'],
      ['etxea', 'etxea'],
      ['etxeak', 'etxe'],
      ['etxeko', 'etxeko'],
      ['etxetik', 'etxet'],
      ['mendiak', 'mendi'],
      ['mendietan', 'mendi'],
      ['gizonarekin', 'gizo'],
      ['umeentzat', 'ume'],
      ['euskaldunak', 'euskal'],
      ['euskararen', 'eusk'],
      ['herrialdeetan', 'herri'],
      ['ikasleak', 'ikasle'],
      ['ikastolan', 'ikastol'],
      ['idazlearen', 'idaz'],
      ['liburuak', 'liburu'],
      ['liburutegira', 'liburu'],
      ['lanean', 'lan'],
      ['langileen', 'lan'],
      ['kaleetatik', 'kaleetat'],
      ['jokalariak', 'jok'],
      ['zuhaitzak', 'zuhai'],
      ['haurrentzat', 'haurren'],
      ['ekonomikoa', 'ekonomi'],
      ['politikariak', 'poli'],
      ['gobernuaren', 'gobernua'],
      ['historiaren', 'historia'],
      ['garrantzitsua', 'garrantzi'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('basque', word), [expected], word);
    assert.equal(placed('basque', 'zaldi zaldiak izan'), 'zaldi@0 zaldi@1');
  });

  it("latvian: stop words and the light stemmer, palatalization undone (Lucene's TestLatvianStemmer)", () => {
    // Pairs of word and stem: declensions I to VI, adjectives, palatalized genitive plurals, length limits.
    const pairs = `
      tēvs tēv tēvi tēv tēva tēv tēvu tēv tēvam tēv tēviem tēv tēvus tēv tēvā tēv tēvos tēv
      lācis lāc lāči lāc lāča lāc lāču lāc lācim lāc lāčiem lāc lāci lāc lāčus lāc lācī lāc lāčos lāc
      akmens akmen akmeņi akmen akmeņu akmen akmenim akmen akmeņiem akmen akmeni akmen akmeņus akmen akmenī akmen akmeņos akmen
      kurmis kurm kurmji kurm kurmja kurm kurmju kurm kurmim kurm kurmjiem kurm kurmi kurm kurmjus kurm kurmī kurm kurmjos kurm
      lietus liet lieti liet lietu liet lietum liet lietiem liet lietū liet lietos liet
      lapa lap lapas lap lapu lap lapai lap lapām lap lapā lap lapās lap
      puika puik puikas puik puiku puik puikam puik puikām puik puikā puik puikās puik
      egle egl egles egl egļu egl eglei egl eglēm egl egli egl eglē egl eglēs egl
      govs gov govis gov govju gov govij gov govīm gov govi gov govī gov govīs gov
      zils zil zilais zil zili zil zilie zil zila zil zilā zil zilas zil zilās zil zilu zil zilo zil zilam zil zilajam zil ziliem zil zilajiem zil zilai zil zilajai zil zilām zil zilajām zil zilus zil zilos zil zilajā zil zilajos zil zilajās zil
      krāsns krāsn krāšņu krāsn zvaigzne zvaigzn zvaigžņu zvaigzn kāpslis kāpsl kāpšļu kāpsl zizlis zizl zižļu zizl vilnis viln viļņu viln lelle lell leļļu lell pinne pinn piņņu pinn rīkste rīkst rīkšu rīkst
      usa usa 60ms 60ms`
      .trim()
      .split(/\s+/);
    for (let i = 0; i < pairs.length; i += 2) {
      assert.deepEqual(terms('latvian', pairs[i]!), [pairs[i + 1]], pairs[i]);
    }
    assert.deepEqual(terms('latvian', 'un tēvs ir'), ['tēv']);
  });

  it("hindi: Indic and Hindi normalization, stop words, the light stemmer (Lucene's TestHindiStemmer, TestHindiAnalyzer)", () => {
    // The stemmer alone, on Lucene's own cases.
    const stems: [string, string][] = [
      ['लडका', 'लडक'],
      ['लडके', 'लडक'],
      ['लडकों', 'लडक'],
      ['गुरु', 'गुर'],
      ['गुरुओं', 'गुर'],
      ['दोस्त', 'दोस्त'],
      ['दोस्तों', 'दोस्त'],
      ['लडकी', 'लडक'],
      ['लडकियों', 'लडक'],
      ['किताब', 'किताब'],
      ['किताबें', 'किताब'],
      ['किताबों', 'किताब'],
      ['आध्यापीका', 'आध्यापीक'],
      ['आध्यापीकाएं', 'आध्यापीक'],
      ['आध्यापीकाओं', 'आध्यापीक'],
      ['खाना', 'खा'],
      ['खाता', 'खा'],
      ['खाती', 'खा'],
      ['खा', 'खा'],
      ['कठिनाइयां', 'कठिन'],
      ['कठिन', 'कठिन'],
    ];
    for (const [word, expected] of stems) {
      const units = word.split('');
      assert.equal(units.slice(0, hindiStem(units, units.length)).join(''), expected, word);
    }
    // Through the analyzer: Snowball's Hindi sample words, each with Lucene's term.
    const cases: [string, string][] = [
      ['हिन्दी', 'हिंद'],
      ['हिंदी', 'हिंद'],
      ['अँगरेजों', 'अंगरेज'],
      ['अँगुलियाँ', 'अंगुल'],
      ['अंगरक्षकों', 'अंगरकषक'],
      ['अंगूठियां', 'अंगुठ'],
      ['अंतःक्रियाओं', 'अंतःकरिय'],
      ['अंतरराष्ट्रीय', 'अंतरराषटरिय'],
      ['अखबारों', 'अखबार'],
      ['अख़्तर', 'अखतर'],
      ['अखाड़ों', 'अखाड'],
      ['अच्छाइयों', 'अचछ'],
      ['अतिथियों', 'अतिथ'],
      ['अदालतें', 'अदालत'],
      ['अधिकारियों', 'अधिकार'],
      ['अनुभूतियाँ', 'अनुभुत'],
      ['अनुसंधानकर्ताओं', 'अनुसंधानकर'],
      ['अपनाएं', 'अप'],
      ['अपनाकर', 'अपन'],
      ['अपनाता', 'अपन'],
      ['अपनाने', 'अपन'],
      ['अपेक्षाएँ', 'अपेकष'],
      ['अफ़्रीकियों', 'अफरिक'],
      ['अभिक्रियाएँ', 'अभिकरिय'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('hindi', word), [expected], word);
    // Nukta forms fold to their base letter; \u0928 (with or without nukta) is a stop word.
    assert.equal(placed('hindi', 'ऩ ऱ ऴ क़ ख़ ग़ ज़ ड़ ढ़ फ़ य़'), 'र@1 ळ@2 क@3 ख@4 ग@5 ज@6 ड@7 ढ@8 फ@9 य@10');
    // Zero-width joiners go, in other Indic scripts too.
    assert.equal(placed('hindi', 'ক্\u200dত ഴ്\u200d ৰ ব়া'), 'ক্ত@0 ഴ്@1 ৰ@2 ব়া@3');
    assert.equal(placed('hindi', 'कर्म और पुण्य'), 'करम@0 पुणय@2');
  });

  it("galician: stop words and the RSLP Galician stemmer (Lucene's TestGalicianAnalyzer, then Lucene's stems)", () => {
    const cases: [string, string][] = [
      ['cidades', 'cid'],
      ['galegas', 'galeg'],
      ['nacionais', 'nacion'],
      ['bonitos', 'bon'],
      ['rapazas', 'rapaz'],
      ['cantabamos', 'cant'],
      ['falaremos', 'fal'],
      ['vendíamos', 'vend'],
      ['libriños', 'libro'],
      ['casiña', 'cas'],
      ['homazo', 'homaz'],
      ['cansadísimo', 'cans'],
      ['xeralmente', 'xeral'],
      ['rapidamente', 'rap'],
      ['problemas', 'problem'],
      ['universidades', 'univers'],
      ['información', 'inform'],
      ['traballadores', 'traball'],
      ['escritores', 'escr'],
      ['papéis', 'papel'],
      ['capitães', 'capiton'],
      ['luces', 'luz'],
      ['animás', 'animal'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('galician', word), [expected], word);
    assert.equal(
      placed('galician', 'O Concello de Santiago de Compostela é a capital de Galicia'),
      'concell@1 santiag@3 compostel@5 capit@8 gal@10',
    );
  });

  it("greek: Greek lowercase, stop words and Ntais' stemmer (Lucene's TestGreekStemmer)", () => {
    // Pairs of word and stem: nouns, adjectives, comparatives and verbs, accents and final sigma folded.
    const pairs = `
      άνθρωπος ανθρωπ  ανθρώπου ανθρωπ  άνθρωπο ανθρωπ  άνθρωπε ανθρωπ  άνθρωποι ανθρωπ  ανθρώπων ανθρωπ
      ανθρώπους ανθρωπ  πελάτης πελατ  πελάτη πελατ  πελάτες πελατ  πελατών πελατ  ελέφαντας ελεφαντ
      ελέφαντα ελεφαντ  ελέφαντες ελεφαντ  ελεφάντων ελεφαντ  μπαμπάς μπαμπ  μπαμπά μπαμπ  μπαμπάδες μπαμπ
      μπαμπάδων μπαμπ  μπακάλης μπακαλ  μπακάλη μπακαλ  μπακάληδες μπακαλ  μπακάληδων μπακαλ  καφές καφ
      καφέ καφ  καφέδες καφ  καφέδων καφ  γραμματέας γραμματε  γραμματέα γραμματε  γραμματείς γραμματ
      γραμματέων γραμματ  απόπλους αποπλ  απόπλου αποπλ  απόπλοι αποπλ  απόπλων αποπλ  παππούς παππ
      παππού παππ  παππούδες παππ  παππούδων παππ  λάτρης λατρ  λάτρη λατρ  λάτρεις λατρ  λάτρεων λατρ
      πέλεκυς πελεκ  πέλεκυ πελεκ  πελέκεις πελεκ  πελέκεων πελεκ  μέντωρ μεντωρ  μέντορος μεντορ
      μέντορα μεντορ  μέντορες μεντορ  μεντόρων μεντορ  αγώνας αγων  αγώνος αγων  αγώνα αγων  αγώνες αγων
      αγώνων αγων  αέρας αερ  αέρα αερ  αέρηδες αερ  αέρηδων αερ  γόης γο  γόη γοη  γόητες γοητ
      γοήτων γοητ  φορά φορ  φοράς φορ  φορές φορ  φορών φορ  αγελάδα αγελαδ  αγελάδας αγελαδ
      αγελάδες αγελαδ  αγελάδων αγελαδ  ζάχαρη ζαχαρ  ζάχαρης ζαχαρ  ζάχαρες ζαχαρ  ζαχάρεων ζαχαρ
      τηλεόραση τηλεορασ  τηλεόρασης τηλεορασ  τηλεοράσεις τηλεορασ  τηλεοράσεων τηλεορασ  μαμά μαμ
      μαμάς μαμ  μαμάδες μαμ  μαμάδων μαμ  λεωφόρος λεωφορ  λεωφόρου λεωφορ  λεωφόρο λεωφορ
      λεωφόρε λεωφορ  λεωφόροι λεωφορ  λεωφόρων λεωφορ  λεωφόρους λεωφορ  αλεπού αλεπ  αλεπούς αλεπ
      αλεπούδες αλεπ  αλεπούδων αλεπ  γραμματέως γραμματ  βιβλίο βιβλι  βιβλίου βιβλ  βιβλία βιβλ
      βιβλίων βιβλ  πουλί πουλ  πουλιού πουλ  πουλιά πουλ  πουλιών πουλ  πρόβλημα προβλημ
      προβλήματος προβλημα  προβλήματα προβλημα  προβλημάτων προβλημα  πέλαγος πελαγ  πελάγους πελαγ
      πελάγη πελαγ  πελάγων πελαγ  γεγονός γεγον  γεγονότος γεγον  γεγονότα γεγον  γεγονότων γεγον
      βράδυ βραδ  βράδι βραδ  βραδιού βραδ  βράδια βραδ  βραδιών βραδ  δόρυ δορ  δόρατος δορατ
      δόρατα δορατ  δοράτων δορατ  κρέας κρε  κρέατος κρε  κρέατα κρε  κρεάτων κρε  λυκόφως λυκοφω
      λυκόφωτος λυκοφω  λυκόφωτα λυκοφω  λυκοφώτων λυκοφω  μέσον μεσον  μέσου μεσ  μέσα μεσ  μέσων μεσ
      ενδιαφέρον ενδιαφερον  ενδιαφέροντος ενδιαφεροντ  ενδιαφέροντα ενδιαφεροντ
      ενδιαφερόντων ενδιαφεροντ  ανακοινωθέν ανακοινωθεν  ανακοινωθέντος ανακοινωθεντ
      ανακοινωθέντα ανακοινωθεντ  ανακοινωθέντων ανακοινωθεντ  σύμπαν συμπ  σύμπαντος συμπαντ
      σύμπαντα συμπαντ  συμπάντων συμπαντ  γάλα γαλ  γάλακτος γαλακτ  γάλατα γαλατ  γαλάκτων γαλακτ
      συνεχής συνεχ  συνεχούς συνεχ  συνεχή συνεχ  συνεχών συνεχ  συνεχείς συνεχ  συνεχές συνεχ
      συνήθης συνηθ  συνήθους συνηθ  συνήθη συνηθ  συνήθεις συν  συνήθων συνηθ  σύνηθες συνηθ  βαθύς βαθ
      βαθέος βαθε  βαθύ βαθ  βαθείς βαθ  βαθέων βαθ  βαθιά βαθ  βαθιάς βαθι  βαθιές βαθι  βαθιών βαθ
      βαθέα βαθε  ψηλός ψηλ  ψηλότερος ψηλ  ψηλότατος ψηλ  ωραίος ωραι  ωραιότερος ωραι  ωραιότατος ωραι
      επιεικής επιεικ  επιεικέστερος επιεικ  επιεικέστατος επιεικ  ορίζω οριζ  όριζα οριζ  όριζε οριζ
      ορίζοντας οριζ  ορίζομαι οριζ  οριζόμουν οριζ  ορίζεσαι οριζ  όρισα ορισ  ορίσω ορισ  όρισε ορισ
      ορίσει ορισ  ορίστηκα οριστ  οριστώ οριστ  οριστείς οριστ  οριστεί οριστ  ορισμένο ορισμεν
      ορισμένη ορισμεν  ορισμένος ορισμεν  ανοίγω ανοιγ  άνοιγα ανοιγ  άνοιγε ανοιγ  ανοίγοντας ανοιγ
      ανοίγομαι ανοιγ  ανοιγόμουν ανοιγ  άνοιξα ανοιξ  ανοίξω ανοιξ  άνοιξε ανοιξ  ανοίξει ανοιξ
      ανοίχτηκα ανοιχτ  ανοιχτώ ανοιχτ  ανοιχτείς ανοιχτ  ανοιχτεί ανοιχτ  ανοίξου ανοιξ  περνώ περν
      περνάω περν  περνούσα περν  πέρναγα περν  πέρνα περν  περνώντας περν  πέρασα περασ  περάσω περασ
      πέρασε περασ  περάσει περασ  περνιέμαι περν  περνιόμουν περν  περάστηκα περαστ  περαστώ περαστ
      περαστείς περαστ  περαστεί περαστ  περασμένο περασμεν  περασμένη περασμεν  περασμένος περασμεν
      πετώ πετ  πετάω πετ  πετούσα πετ  πέταγα πετ  πέτα πετ  πετώντας πετ  πετιέμαι πετ  πετιόμουν πετ
      πέταξα πεταξ  πετάξω πεταξ  πέταξε πεταξ  πετάξει πεταξ  πετάχτηκα πεταχτ  πεταχτώ πεταχτ
      πεταχτείς πεταχτ  πεταχτεί πεταχτ  πεταμένο πεταμεν  πεταμένη πεταμεν  πεταμένος πεταμεν  καλώ καλ
      καλούσα καλ  καλείς καλ  καλώντας καλ  καλούμαι καλ  καλούμουν καλουμ  καλείσαι καλεισα
      καλέστηκα καλεστ  καλεστώ καλεστ  καλεστείς καλεστ  καλεστεί καλεστ  καλεσμένο καλεσμεν
      καλεσμένη καλεσμεν  καλεσμένος καλεσμεν  φορώ φορ  φοράω φορ  φορούσα φορ  φόραγα φορ  φόρα φορ
      φορώντας φορ  φοριέμαι φορ  φοριόμουν φορ  φοριέσαι φορ  φόρεσα φορεσ  φορέσω φορεσ  φόρεσε φορεσ
      φορέσει φορεσ  φορέθηκα φορεθ  φορεθώ φορεθ  φορεθείς φορεθ  φορεθεί φορεθ  φορεμένο φορεμεν
      φορεμένη φορεμεν  φορεμένος φορεμεν  κρατώ κρατ  κρατάω κρατ  κρατούσα κρατ  κράταγα κρατ
      κράτα κρατ  κρατώντας κρατ  κράτησα κρατ  κρατήσω κρατ`
      .trim()
      .split(/\s+/);
    for (let i = 0; i < pairs.length; i += 2) {
      assert.deepEqual(terms('greek', pairs[i]!), [pairs[i + 1]], pairs[i]);
    }
    assert.equal(placed('greek', 'Ο ΆΝΘΡΩΠΟΣ ΚΑΙ Η ΓΥΝΑΊΚΑ ΤΟΥ'), 'ανθρωπ@1 γυναικ@4');
  });

  it("brazilian: stop words and Lucene's Brazilian stemmer (Lucene's TestBrazilianStemmer words, then Lucene's stems)", () => {
    const cases: [string, string][] = [
      ['boassa', 'boass'],
      ['boainain', 'boainain'],
      ['boas', 'boas'],
      ['bôas', 'boas'],
      ['boca', 'boc'],
      ['bocados', 'boc'],
      ['bocas', 'boc'],
      ['boçalizado', 'bocaliz'],
      ['bôdes', 'bod'],
      ['bodes', 'bod'],
      ['boi', 'boi'],
      ['bóia', 'boi'],
      ['bola', 'bol'],
      ['bolas', 'bol'],
      ['bolo', 'bol'],
      ['bolsas', 'bols'],
      ['quilométricas', 'quilometr'],
      ['quilométricos', 'quilometr'],
      ['brasileiro', 'brasileir'],
      ['brasileiros', 'brasileir'],
      ['brasileira', 'brasileir'],
      ['nações', 'naco'],
      ['ações', 'aco'],
      ['informação', 'inform'],
      ['computadores', 'comput'],
      ['comunicação', 'comunic'],
      ['governamentais', 'governament'],
      ['cantávamos', 'cant'],
      ['falaríamos', 'fal'],
      ['partisse', 'part'],
      ['felizmente', 'feliz'],
      ['nacionalidade', 'nacional'],
      ['lógica', 'logic'],
      ['ideologias', 'ideolog'],
      ['lingüística', 'linguist'],
      ['pão', 'pao'],
      ['coração', 'coraca'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('brazilian', word), [expected], word);
    // `é` is too short to stem and is kept as written; numbers and words with digits are not stemmed.
    assert.equal(
      placed('brazilian', 'Brasília é a capital do Brasil 2024 x1y2 ab'),
      'brasil@0 é@1 capital@3 brasil@5 2024@6 x1y2@7 ab@8',
    );
  });

  it("turkish: Turkish lowercase, stop words and Snowball's Turkish stemmer (Lucene's TestTurkishAnalyzer, then Lucene's stems)", () => {
    const cases: [string, string][] = [
      ['ağacı', 'ağaç'],
      ['ağaç', 'ağaç'],
      ['kitaplarımızdan', 'kitap'],
      ['evdekiler', 'evdeki'],
      ['doktoruymuşsunuz', 'doktor'],
      ['kedileri', 'kedi'],
      ['okullarda', 'okul'],
      ['arkadaşlarımızın', 'arkadaş'],
      ['çocuklarımızın', 'çocuk'],
      ['güzelleştirmek', 'güzelleştirmek'],
      ['bilgisayarlarımızdaki', 'bilgisayar'],
      ['soyad', 'soyad'],
      ['adı', 'ad'],
      ['KITAPLAR', 'kıtap'],
      ['Iğdır', 'ık'],
      ['İSTANBUL', 'istanbul'],
    ];
    for (const [word, expected] of cases) assert.deepEqual(terms('turkish', word), [expected], word);
    // Lucene 4.6 has no ApostropheFilter: the suffix after an apostrophe stays on the term.
    assert.equal(placed('turkish', "İstanbul'a gidiyorum, dolayı ağacı"), "istanbul'a@0 gidiyor@1 ağaç@3");
    // A combining dot above makes `I` a dotted `i`, and goes.
    assert.deepEqual(terms('turkish', 'I\u0307'), ['i']);
  });
});
