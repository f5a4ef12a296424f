/**
 * Terms interned as small integers while a batch of documents is mapped (./search-mapper.ts):
 * a word met before is found from the text's character codes, without a string made of it, and
 * a document's postings are grouped by integer, not by a Map of strings. Each token of a ~1 KB
 * text was a string, an object and a Map lookup, and the garbage they made was a quarter of a
 * 1% update's CPU.
 *
 * Ids are valid until `trimmed` starts the dictionary again (between documents: it stays
 * small when the texts' vocabulary keeps growing).
 */
export class TermDictionary {
  /** The terms by id. */
  readonly terms: string[] = [];
  /** Bumped when the ids are given again from 0 (caches of derived ids start again). */
  generation = 0;
  /** The terms' characters summed (a `not_analyzed` value is one term, however long). */
  private characters = 0;
  private hashes = new Int32Array(1024);
  /** Open addressing: id + 1 per slot, 0 empty. */
  private table = new Int32Array(2048);

  /** The id of `text[start, end)` with ASCII capitals lowered (the text is ASCII there). */
  idOfLoweredAscii(text: string, start: number, end: number): number {
    let hash = FNV_OFFSET;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ lowered(text.charCodeAt(i)), FNV_PRIME);
    return this.idOfHashed(text, start, end, hash);
  }

  /** The same, given the range's hash (`hashStep` over its lowered codes from HASH_START), made by a scan that read them. */
  idOfHashed(text: string, start: number, end: number, hash: number): number {
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) {
        let term = text.slice(start, end);
        for (let i = start; i < end; i++) {
          const code = text.charCodeAt(i);
          if (code >= 0x41 && code <= 0x5a) {
            term = term.toLowerCase();
            break;
          }
        }
        return this.add(term, hash, slot);
      }
      const id = entry - 1;
      if (this.hashes[id] === hash && sameLoweredAscii(this.terms[id]!, text, start, end)) return id;
    }
  }

  /** `idOfHashed` with the range's characters read from `bytes` (the text's, ASCII) where they are compared. */
  idOfHashedBytes(text: string, bytes: Uint8Array, start: number, end: number, hash: number): number {
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return this.idOfHashed(text, start, end, hash);
      const id = entry - 1;
      if (this.hashes[id] === hash && sameLoweredBytes(this.terms[id]!, bytes, start, end)) return id;
    }
  }

  /** The id of a term as it is. */
  idOf(term: string): number {
    let hash = FNV_OFFSET;
    for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), FNV_PRIME);
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return this.add(term, hash, slot);
      const id = entry - 1;
      if (this.hashes[id] === hash && this.terms[id] === term) return id;
    }
  }

  /** Starts again when past `limit` terms or MAX_CHARACTERS of them (call only where no id is held). */
  trimmed(limit = MAX_TERMS): void {
    if (this.terms.length <= limit && this.characters <= MAX_CHARACTERS) return;
    this.terms.length = 0;
    this.characters = 0;
    this.table = new Int32Array(2048);
    this.hashes = new Int32Array(1024);
    this.generation++;
  }

  private add(term: string, hash: number, slot: number): number {
    const id = this.terms.length;
    this.terms.push(term);
    this.characters += term.length;
    if (id >= this.hashes.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[id] = hash;
    this.table[slot] = id + 1;
    // At most half full.
    if (this.terms.length * 2 > this.table.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.terms.length; id++) {
      let slot = this.hashes[id]! & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }
}

/** Terms, and their characters, kept before the dictionary starts again (a few MB). */
const MAX_TERMS = 1 << 17;
const MAX_CHARACTERS = 1 << 22;

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** A term's hash starts at this... */
export const HASH_START = FNV_OFFSET;
/** ...and takes each (lowered) character code so. */
export function hashStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

function lowered(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

function sameLoweredAscii(term: string, text: string, start: number, end: number): boolean {
  if (term.length !== end - start) return false;
  for (let i = 0; i < term.length; i++) if (term.charCodeAt(i) !== lowered(text.charCodeAt(start + i))) return false;
  return true;
}

function sameLoweredBytes(term: string, bytes: Uint8Array, start: number, end: number): boolean {
  if (term.length !== end - start) return false;
  for (let i = 0; i < term.length; i++) if (term.charCodeAt(i) !== lowered(bytes[start + i]!)) return false;
  return true;
}
