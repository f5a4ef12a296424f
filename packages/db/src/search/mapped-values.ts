/**
 * The row values the mapper just made (../search/search-mapper.ts), by document id, for the
 * in-memory postings (./postings.ts `put`) to take instead of parsing the row's JSON again
 * (about a tenth of a 1% update's CPU until the answer). A value is given out only when it is
 * certainly the one its row was made of: a document mapped again before its row was taken (the
 * view updater maps a batch while it writes the one before) is parsed from its row, as is
 * anything the mapper did not note.
 */
import type { DocValue } from './search-rows.js';

export class MappedValues {
  /** Per document: its mapped value (null once it was mapped twice before taken) and how many rows wait. */
  private readonly entries = new Map<string, { value: DocValue | null; waiting: number }>();

  /** The document was mapped to `value` (one that survives JSON as it is: ./search-mapper.ts checks). */
  noted(id: string, value: DocValue | undefined): void {
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      entry.value = null;
      entry.waiting++;
    } else if (this.entries.size < MAX_ENTRIES) {
      this.entries.set(id, { value: value ?? null, waiting: 1 });
    }
  }

  /** The value of the document's row being put, when certain; else undefined (parse the row). */
  take(id: string): DocValue | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (--entry.waiting <= 0) this.entries.delete(id);
    return entry.value ?? undefined;
  }

  /**
   * A build's rows were loaded in bulk (not put one by one): none of its documents' values is
   * taken, and no other row waits (the build holds the index).
   */
  cleared(): void {
    this.entries.clear();
  }
}

/**
 * Documents mapped and not taken yet are past this only when rows were not written (a failed
 * update, a build before its bulk load): then nothing more is noted (the rows are parsed),
 * rather than dropping an entry that a row written later would need to see as ambiguous.
 */
const MAX_ENTRIES = 50_000;
