/**
 * Lucene's CJKWidthFilter, exactly: full-width ASCII (U+FF01–FF5E) to ASCII, half-width katakana
 * (U+FF65–FF9F) to full width, and a half-width voicing mark (ﾞ, ﾟ) composed into the kana
 * before it when that kana has a voiced form (`ｶﾞ` → `ガ`, `ハﾟ` → `パ`), else mapped on its own.
 */

/** Full-width forms of U+FF65–FF9F. */
// biome-ignore format: a table
const KANA_NORM = [
  0x30fb, 0x30f2, 0x30a1, 0x30a3, 0x30a5, 0x30a7, 0x30a9, 0x30e3, 0x30e5, 0x30e7, 0x30c3, 0x30fc,
  0x30a2, 0x30a4, 0x30a6, 0x30a8, 0x30aa, 0x30ab, 0x30ad, 0x30af, 0x30b1, 0x30b3, 0x30b5, 0x30b7,
  0x30b9, 0x30bb, 0x30bd, 0x30bf, 0x30c1, 0x30c4, 0x30c6, 0x30c8, 0x30ca, 0x30cb, 0x30cc, 0x30cd,
  0x30ce, 0x30cf, 0x30d2, 0x30d5, 0x30d8, 0x30db, 0x30de, 0x30df, 0x30e0, 0x30e1, 0x30e2, 0x30e4,
  0x30e6, 0x30e8, 0x30e9, 0x30ea, 0x30eb, 0x30ec, 0x30ed, 0x30ef, 0x30f3, 0x3099, 0x309a,
];

/** What a voiced mark adds to a kana from U+30A6 on (0: none). */
// biome-ignore format: a table
const VOICED = [
  78, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0,
  1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
];

/** What a semi-voiced mark adds to a kana from U+30A6 on: ハ ヒ フ ヘ ホ to パ ピ プ ペ ポ. */
const SEMI_VOICED_FROM = 0x30cf - 0x30a6;

function combined(previous: number, mark: number): number {
  if (previous < 0x30a6 || previous > 0x30fd) return previous;
  const i = previous - 0x30a6;
  if (mark === 0xff9f)
    return i >= SEMI_VOICED_FROM && i <= SEMI_VOICED_FROM + 12 && (i - SEMI_VOICED_FROM) % 3 === 0
      ? previous + 2
      : previous;
  return previous + VOICED[i]!;
}

export function cjkWidthFolded(text: string): string {
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xff01 && unit <= 0xff9f) break;
    i++;
  }
  if (i === text.length) return text;
  const units: number[] = [];
  for (let k = 0; k < text.length; k++) {
    const unit = text.charCodeAt(k);
    if (unit >= 0xff01 && unit <= 0xff5e) units.push(unit - 0xfee0);
    else if (unit >= 0xff65 && unit <= 0xff9f) {
      const previous = units.length > 0 ? units[units.length - 1]! : -1;
      const voiced = (unit === 0xff9e || unit === 0xff9f) && previous !== -1 ? combined(previous, unit) : previous;
      if (voiced !== previous) units[units.length - 1] = voiced;
      else units.push(KANA_NORM[unit - 0xff65]!);
    } else units.push(unit);
  }
  return String.fromCharCode(...units);
}
