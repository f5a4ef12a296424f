/**
 * Lucene 4's PersianAnalyzer: zero-width non-joiners made spaces (PersianCharFilter) → standard
 * tokens → lowercase → ArabicNormalizationFilter → PersianNormalizationFilter (Farsi yeh and yeh
 * barree → yeh, keheh → kaf, heh with yeh and heh goal → heh, hamza above off) → Persian stop
 * words (Savoy's list as Lucene ships it, written normalized, so after the normalization). No
 * stemmer: Lucene has none for Persian.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { arabicNormalize } from './arabic.js';
import { lowercased, withoutStopWords } from './filters.js';
import { stemmed } from './stemmer-util.js';

export const PERSIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `انان نداشته سراسر خياه ايشان وي تاكنون بيشتري دوم پس ناشي وگو يا داشتند سپس هنگام هرگز پنج نشان
  امسال ديگر گروهي شدند چطور ده و دو نخستين ولي چرا چه وسط ه كدام قابل يك رفت هفت همچنين در هزار
  بله بلي شايد اما شناسي گرفته دهد داشته دانست داشتن خواهيم ميليارد وقتيكه امد خواهد جز اورده شده
  بلكه خدمات شدن برخي نبود بسياري جلوگيري حق كردند نوعي بعري نكرده نظير نبايد بوده بودن داد اورد
  هست جايي شود دنبال داده بايد سابق هيچ همان انجا كمتر كجاست گردد كسي تر مردم تان دادن بودند سري
  جدا ندارند مگر يكديگر دارد دهند بنابراين هنگامي سمت جا انچه خود دادند زياد دارند اثر بدون بهترين
  بيشتر البته به براساس بيرون كرد بعضي گرفت توي اي ميليون او جريان تول بر مانند برابر باشيم مدتي
  گويند اكنون تا تنها جديد چند بي نشده كردن كردم گويد كرده كنيم نمي نزد روي قصد فقط بالاي ديگران
  اين ديروز توسط سوم ايم دانند سوي استفاده شما كنار داريم ساخته طور امده رفته نخست بيست نزديك طي
  كنيد از انها تمامي داشت يكي طريق اش چيست روب نمايد گفت چندين چيزي تواند ام ايا با ان ايد ترين
  اينكه ديگري راه هايي بروز همچنان پاعين كس حدود مختلف مقابل چيز گيرد ندارد ضد همچون سازي شان مورد
  باره مرسي خويش برخوردار چون خارج شش هنوز تحت ضمن هستيم گفته فكر بسيار پيش براي روزهاي انكه
  نخواهد بالا كل وقتي كي چنين كه گيري نيست است كجا كند نيز يابد بندي حتي توانند عقب خواست كنند بين
  تمام همه ما باشند مثل شد اري باشد اره طبق بعد اگر صورت غير جاي بيش ريزي اند زيرا چگونه بار لطفا
  مي درباره من ديده همين گذاري برداري علت گذاشته هم فوق نه ها شوند اباد همواره هر اول خواهند چهار
  نام امروز مان هاي قبل كنم سعي تازه را هستند زير جلوي عنوان بود`.split(/\s+/),
);

export function persianAnalyzer(stop: ReadonlySet<string> = PERSIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) =>
    withoutStopWords(
      stemmed(stemmed(lowercased(standardTokens(text.replace(/\u200C/g, ' '))), arabicNormalize), persianNormalize),
      stop,
    );
}

const FOLDED: Readonly<Record<string, string>> = {
  '\u06CC': '\u064A',
  '\u06D2': '\u064A',
  '\u06A9': '\u0643',
  '\u06C0': '\u0647',
  '\u06C1': '\u0647',
};

export function persianNormalize(s: string[], len: number): number {
  for (let i = 0; i < len; i++) {
    const folded = FOLDED[s[i]!];
    if (folded !== undefined) s[i] = folded;
    else if (s[i] === '\u0654') {
      s.splice(i--, 1);
      len--;
    }
  }
  return len;
}
