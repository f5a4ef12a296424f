/**
 * Lucene 4.6's ThaiAnalyzer: standard tokens → lowercase → ThaiWordFilter → Thai stop words (the
 * list Lucene ships, from "Opinion Detection in Thai Political News Columns"). Thai has no spaces
 * between words: the standard tokenizer keeps a run of Thai letters as one token, and
 * ThaiWordFilter cuts a token that starts with a Thai character at the word boundaries of a
 * dictionary-based break iterator (the JDK's, in Lucene). Here that is `Intl.Segmenter`, which
 * uses ICU's Thai dictionary: the words of the two dictionaries agree on common text; a rare
 * word or name can be cut differently. Each word gets its own position.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';

export const THAI_STOP_WORDS: ReadonlySet<string> = new Set(
  `ไว้ ไม่ ไป ได้ ให้ ใน โดย แห่ง แล้ว และ แรก แบบ แต่ เอง เห็น เลย เริ่ม เรา เมื่อ เพื่อ เพราะ เป็นการ
  เป็น เปิดเผย เปิด เนื่องจาก เดียวกัน เดียว เช่น เฉพาะ เคย เข้า เขา อีก อาจ อะไร ออก อย่าง อยู่ อยาก หาก
  หลาย หลังจาก หลัง หรือ หนึ่ง ส่วน ส่ง สุด สําหรับ ว่า วัน ลง ร่วม ราย รับ ระหว่าง รวม ยัง มี มาก มา
  พร้อม พบ ผ่าน ผล บาง น่า นี้ นํา นั้น นัก นอกจาก ทุก ที่สุด ที่ ทําให้ ทํา ทาง ทั้งนี้ ทั้ง ถ้า ถูก ถึง
  ต้อง ต่างๆ ต่าง ต่อ ตาม ตั้งแต่ ตั้ง ด้าน ด้วย ดัง ซึ่ง ช่วง จึง จาก จัด จะ คือ ความ ครั้ง คง ขึ้น ของ
  ขอ ขณะ ก่อน ก็ การ กับ กัน กว่า กล่าว`.split(/\s+/),
);

export function thaiAnalyzer(stop: ReadonlySet<string> = THAI_STOP_WORDS): (text: string) => Token[] {
  return (text) => withoutStopWords(thaiWords(lowercased(standardTokens(text))), stop);
}

const THAI_BLOCK = /^[\u0E00-\u0E7F]/u;
let segmenter: Intl.Segmenter | undefined;

/** ThaiWordFilter: a token starting with a Thai character cut into its words; later tokens move up. */
export function thaiWords(tokens: Token[]): Token[] {
  const out: Token[] = [];
  let added = 0;
  for (const token of tokens) {
    if (!THAI_BLOCK.test(token.text)) {
      out.push({ text: token.text, position: token.position + added });
      continue;
    }
    segmenter ??= new Intl.Segmenter('th', { granularity: 'word' });
    let first = true;
    for (const { segment } of segmenter.segment(token.text)) {
      if (!first) added++;
      out.push({ text: segment, position: token.position + added });
      first = false;
    }
  }
  return out;
}
