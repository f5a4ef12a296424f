/**
 * Lucene 4's BasqueAnalyzer: standard tokens → lowercase → Basque stop words (Lucene's list) →
 * Snowball's Basque stemmer: verb suffixes (aditzak) removed as long as one is, then noun suffixes
 * (izenak), then one adjective suffix (adjetiboak); each in its region (RV, R1 or R2), a few
 * replaced by a fixed form. A replacement is not looked into again: the next suffix must end
 * before it.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { Endings } from './snowball-among.js';
import { regionsOneTwo, romanceRegionV } from './snowball-regions.js';

export const BASQUE_STOP_WORDS: ReadonlySet<string> = new Set(
  `al anitz arabera asko baina bat batean batek bati batzuei batzuek batzuetan batzuk bera beraiek berau
  berauek bere berori beroriek beste bezala da dago dira ditu du dute edo egin ere eta eurak ez gainera gu
  gutxi guzti haiei haiek haietan hainbeste hala han handik hango hara hari hark hartan hau hauei hauek
  hauetan hemen hemendik hemengo hi hona honek honela honetan honi hor hori horiei horiek horietan horko
  horra horrek horrela horretan horri hortik hura izan ni noiz nola non nondik nongo nor nora ze zein zen
  zenbait zenbat zer zergatik ziren zituen zu zuek zuen zuten`.split(/\s+/),
);

export function basqueAnalyzer(stop: ReadonlySet<string> = BASQUE_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), basqueStem);
}

/** Where a suffix must start to go (undefined: anywhere), and what replaces it. */
type Region = 'rv' | 'r1' | 'r2' | undefined;
interface Rules {
  readonly table: ReadonlyMap<string, readonly [Region, string]>;
  readonly endings: Endings;
}

function rules(groups: readonly (readonly [string, Region, string])[]): Rules {
  const table = new Map<string, readonly [Region, string]>();
  for (const [endings, region, replacement] of groups)
    for (const e of endings.split(/\s+/)) table.set(e, [region, replacement]);
  return { table, endings: new Endings(table.keys()) };
}

const VERBS = rules([
  [
    `idea bidea kidea pidea kundea galea tailea tzailea gunea kunea tzaga gaia aldia taldia karia karria
    ka tzaka la mena pena kina ezina tezina kuna tuna kizuna era bera kera pera orra korra dura gura
    kura tura eta keta gailua eza erreza gaitza kaitza kuntza ide bide kide pide kunde tzake tzeke le
    gale taile tzaile gune kune tze atze gai aldi taldi ki ari kari lari tari etari karri arazi tarazi
    an ean rean kan etan men pen kin rekin ezin tezin tun kizun go ago tio dako or kor tzat du gailu tu
    atu aldatu tatu ez errez tzez gaitz kaitz`,
    'rv',
    '',
  ],
  ['garria tza garri', 'r2', ''],
  ['atseden', undefined, 'atseden'],
  ['arabera', undefined, 'arabera'],
  ['baditu', undefined, 'baditu'],
]);
const NOUNS = rules([
  [
    `ada kada anda denda gabea kabea aldea kaldea taldea ordea zalea tzalea gilea emea kumea nea enea
    zionea unea gunea pea aurrea tea kotea artea ostea etxea ga anga gaia aldia taldia handia mendia
    geia egia degia tegia nahia ohia kia tokia oia koia aria karia laria taria eria keria teria larria
    kirria duria asia tia ezia bizia ontzia ka ska xka zka gibela gela kaila skila tila ola na kana ena
    garrena gerrena urrena zaina tzaina kina mina garna una duna asuna tasuna ondoa kondoa ngoa zioa koa
    takoa zkoa noa zinoa aroa taroa zaroa eroa oroa osoa toa ttoa ztoa txoa tzoa ñoa ra ara dara liara
    tiara tara etara tzara bera kera pera tzarra korra tra sa osa ta eta keta sta dua mendua ordua lekua
    burua durua tsua tua mentua estua txua zua tzua za eza eroza koitza antza gintza kintza kuntza gabe
    kabe kide alde kalde talde orde ge zale tzale gile eme kume ne zione une gune pe aurre te kote arte
    oste etxe gai di aldi taldi handi mendi gei egi degi tegi nahi ohi ki toki oi goi koi ari kari lari
    tari larri kirri duri asi ti ontzi ñi ak ek tarik gibel ail kail kan tan etan garren gerren urren
    zain tzain kin min dun asun tasun aizun ondo kondo go ngo zio ko tako etako eko tariko sko tuko zko
    no zino ro aro taro zaro ero giro oro oso to tto zto txo tzo gintzo ño zp ar dar behar liar tiar tar
    tzar kor os ket du mendu ordu leku duru tsu tu mentu estu txu zu tzu gintzu z ez eroz tz koitz`,
    'rv',
    '',
  ],
  ['garria ora tza garri ren or buru', 'r2', ''],
  ['joka', undefined, 'jok'],
  ['en ten tzen tatu', 'r1', ''],
  ['trako', undefined, 'tra'],
  ['minutuko', undefined, 'minutu'],
  ['zehar', undefined, 'zehar'],
  ['geldi', undefined, 'geldi'],
  ['igaro', undefined, 'igaro'],
  ['aurka', undefined, 'aurka'],
]);
const ADJECTIVES = rules([
  ['keria la era dade tade date tate gi ki ik lanik rik larik ztik go ro ero to', 'rv', ''],
  ['zlea', undefined, 'z'],
]);

const VOWELS = new Set('aeiou');

export function basqueStem(word: string): string {
  const regions = { rv: romanceRegionV(word, VOWELS), ...regionsOneTwo(word, VOWELS) };
  let w = word;
  // Snowball's cursor: suffixes are looked for at its left; a replacement leaves it before the new text.
  let cursor = w.length;
  const step = ({ table, endings }: Rules): boolean => {
    const ending = endings.longest(w, 0, cursor);
    if (ending === undefined) return false;
    const [region, replacement] = table.get(ending)!;
    const start = cursor - ending.length;
    if (region !== undefined && start < regions[region]) return false;
    w = w.slice(0, start) + replacement + w.slice(cursor);
    cursor = start;
    return true;
  };
  while (step(VERBS));
  while (step(NOUNS));
  step(ADJECTIVES);
  return w;
}
