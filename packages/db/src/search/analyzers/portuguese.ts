/**
 * Lucene 4's PortugueseAnalyzer: standard tokens → lowercase → Portuguese stop words (Snowball's
 * list) → PortugueseLightStemFilter (Savoy's "UniNE" light stemmer: plurals, feminine forms,
 * `-mente`, the final vowel, accents folded).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { endsWith, stemmed } from './stemmer-util.js';

export const PORTUGUESE_STOP_WORDS: ReadonlySet<string> = new Set(
  `de a o que e do da em um para com não uma os no se na por mais as dos como mas ao ele das à seu sua
  ou quando muito nos já eu também só pelo pela até isso ela entre depois sem mesmo aos seus quem nas
  me esse eles você essa num nem suas meu às minha numa pelos elas qual nós lhe deles essas esses pelas
  este dele tu te vocês vos lhes meus minhas teu tua teus tuas nosso nossa nossos nossas dela delas
  esta estes estas aquele aquela aqueles aquelas isto aquilo estou está estamos estão estive esteve
  estivemos estiveram estava estávamos estavam estivera estivéramos esteja estejamos estejam estivesse
  estivéssemos estivessem estiver estivermos estiverem hei há havemos hão houve houvemos houveram
  houvera houvéramos haja hajamos hajam houvesse houvéssemos houvessem houver houvermos houverem
  houverei houverá houveremos houverão houveria houveríamos houveriam sou somos são era éramos eram
  fui foi fomos foram fora fôramos seja sejamos sejam fosse fôssemos fossem for formos forem serei
  será seremos serão seria seríamos seriam tenho tem temos tém tinha tínhamos tinham tive teve tivemos
  tiveram tivera tivéramos tenha tenhamos tenham tivesse tivéssemos tivessem tiver tivermos tiverem
  terei terá teremos terão teria teríamos teriam`.split(/\s+/),
);

export function portugueseAnalyzer(stop: ReadonlySet<string> = PORTUGUESE_STOP_WORDS): (text: string) => Token[] {
  return (text) => stemmed(withoutStopWords(lowercased(standardTokens(text)), stop), portugueseLightStem);
}

const FOLDED: Record<string, string> = {
  à: 'a',
  á: 'a',
  â: 'a',
  ä: 'a',
  ã: 'a',
  ò: 'o',
  ó: 'o',
  ô: 'o',
  ö: 'o',
  õ: 'o',
  è: 'e',
  é: 'e',
  ê: 'e',
  ë: 'e',
  ù: 'u',
  ú: 'u',
  û: 'u',
  ü: 'u',
  ì: 'i',
  í: 'i',
  î: 'i',
  ï: 'i',
  ç: 'c',
};

/** PortugueseLightStemmer.stem. */
export function portugueseLightStem(s: string[], len: number): number {
  if (len < 4) return len;
  len = removeSuffix(s, len);
  if (len > 3 && s[len - 1] === 'a') len = normFeminine(s, len);
  if (len > 4 && (s[len - 1] === 'e' || s[len - 1] === 'a' || s[len - 1] === 'o')) len--;
  for (let i = 0; i < len; i++) s[i] = FOLDED[s[i]!] ?? s[i]!;
  return len;
}

function removeSuffix(s: string[], len: number): number {
  if (len > 4 && endsWith(s, len, 'es') && ['r', 's', 'l', 'z'].includes(s[len - 3]!)) return len - 2;
  if (len > 3 && endsWith(s, len, 'ns')) {
    s[len - 2] = 'm';
    return len - 1;
  }
  if (len > 4 && (endsWith(s, len, 'eis') || endsWith(s, len, 'éis'))) {
    s[len - 3] = 'e';
    s[len - 2] = 'l';
    return len - 1;
  }
  if (len > 4 && endsWith(s, len, 'ais')) {
    s[len - 2] = 'l';
    return len - 1;
  }
  if (len > 4 && endsWith(s, len, 'óis')) {
    s[len - 3] = 'o';
    s[len - 2] = 'l';
    return len - 1;
  }
  if (len > 4 && endsWith(s, len, 'is')) {
    s[len - 1] = 'l';
    return len;
  }
  if (len > 3 && (endsWith(s, len, 'ões') || endsWith(s, len, 'ães'))) {
    len--;
    s[len - 2] = 'ã';
    s[len - 1] = 'o';
    return len;
  }
  if (len > 6 && endsWith(s, len, 'mente')) return len - 5;
  if (len > 3 && s[len - 1] === 's') return len - 1;
  return len;
}

function normFeminine(s: string[], len: number): number {
  if (len > 7 && (endsWith(s, len, 'inha') || endsWith(s, len, 'iaca') || endsWith(s, len, 'eira'))) {
    s[len - 1] = 'o';
    return len;
  }
  if (len > 6) {
    if (['osa', 'ica', 'ida', 'ada', 'iva', 'ama'].some((suffix) => endsWith(s, len, suffix))) {
      s[len - 1] = 'o';
      return len;
    }
    if (endsWith(s, len, 'ona')) {
      s[len - 3] = 'ã';
      s[len - 2] = 'o';
      return len - 1;
    }
    if (endsWith(s, len, 'ora')) return len - 1;
    if (endsWith(s, len, 'esa')) {
      s[len - 3] = 'ê';
      return len - 1;
    }
    if (endsWith(s, len, 'na')) {
      s[len - 1] = 'o';
      return len;
    }
  }
  return len;
}
