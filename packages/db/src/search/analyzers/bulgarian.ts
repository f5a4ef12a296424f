/**
 * Lucene 4's BulgarianAnalyzer: standard tokens → lowercase → Bulgarian stop words (Savoy's list,
 * as Lucene ships it) → BulgarianStemFilter (Savoy's light stemmer): words of fewer than four
 * letters kept; `-ища` off; the definite article (`-ият`, `-ът`/`-то`/`-те`/`-та`/`-ия`, `-ят`)
 * off; the plural (`-овци`, `-ове`, `-еве` → `-й`, `-ища`, `-та`, `-ци` → `-к`, `-зи` → `-г`,
 * `е?и` → `я?`, `-си` → `-х`, `-и`) off; a final `я`, then `а`/`о`/`е`, off; `-ен` → `-н`;
 * a `ъ` before the last letter dropped.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { endsWith, stemmed } from './stemmer-util.js';

export const BULGARIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `а аз ако ала бе без беше би бил била били било близо бъдат бъде бяха в вас ваш ваша вероятно вече
  взема ви вие винаги все всеки всички всичко всяка във въпреки върху г ги главно го д да дали до
  докато докога дори досега доста е едва един ето за зад заедно заради засега затова защо защото и
  из или им има имат иска й каза как каква какво както какъв като кога когато което които кой който
  колко която къде където към ли м ме между мен ми мнозина мога могат може моля момента му н на над
  назад най направи напред например нас не него нея ни ние никой нито но някои някой няма обаче около
  освен особено от отгоре отново още пак по повече повечето под поне поради после почти прави пред
  преди през при пък първо с са само се сега си скоро след сме според сред срещу сте съм със също т
  тази така такива такъв там твой те тези ти тн то това тогава този той толкова точно трябва тук тъй
  тя тях у харесва ч че често чрез ще щом я`.split(/\s+/),
);

export function bulgarianAnalyzer(stop: ReadonlySet<string> = BULGARIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => stemmed(withoutStopWords(lowercased(standardTokens(text)), stop), bulgarianStem);
}

export function bulgarianStem(s: string[], len: number): number {
  if (len < 4) return len;
  if (len > 5 && endsWith(s, len, 'ища')) return len - 3;
  len = removeArticle(s, len);
  len = removePlural(s, len);
  if (len > 3) {
    if (endsWith(s, len, 'я')) len--;
    if (endsWith(s, len, 'а') || endsWith(s, len, 'о') || endsWith(s, len, 'е')) len--;
  }
  // The paper's rule ен → н, once (its Perl implementation's fix).
  if (len > 4 && endsWith(s, len, 'ен')) {
    s[len - 2] = 'н';
    len--;
  }
  if (len > 5 && s[len - 2] === 'ъ') {
    s[len - 2] = s[len - 1]!;
    len--;
  }
  return len;
}

function removeArticle(s: string[], len: number): number {
  if (len > 6 && endsWith(s, len, 'ият')) return len - 3;
  if (len > 5 && ['ът', 'то', 'те', 'та', 'ия'].some((e) => endsWith(s, len, e))) return len - 2;
  if (len > 4 && endsWith(s, len, 'ят')) return len - 2;
  return len;
}

function removePlural(s: string[], len: number): number {
  if (len > 6) {
    if (endsWith(s, len, 'овци') || endsWith(s, len, 'ове')) return len - 3;
    if (endsWith(s, len, 'еве')) {
      s[len - 3] = 'й';
      return len - 2;
    }
  }
  if (len > 5) {
    if (endsWith(s, len, 'ища')) return len - 3;
    if (endsWith(s, len, 'та')) return len - 2;
    if (endsWith(s, len, 'ци') || endsWith(s, len, 'зи')) {
      s[len - 2] = s[len - 2] === 'ц' ? 'к' : 'г';
      return len - 1;
    }
    if (s[len - 3] === 'е' && s[len - 1] === 'и') {
      s[len - 3] = 'я';
      return len - 1;
    }
  }
  if (len > 4) {
    if (endsWith(s, len, 'си')) {
      s[len - 2] = 'х';
      return len - 1;
    }
    if (endsWith(s, len, 'и')) return len - 1;
  }
  return len;
}
