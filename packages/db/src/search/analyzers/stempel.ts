/**
 * Stempel (Lucene's StempelStemmer, on the Egothor stemmer): a table learnt from a corpus maps a
 * word's ending to a patch command that turns the word into its stem. The table is a "multi
 * trie": several tries read the word from its end, each giving one part of the command, the
 * word cut by what the earlier parts skip. A command is pairs of (operation, letter): `-x` keep
 * x letters, `Dx` delete x, `Rc` replace with c, `Ic` insert c (x counted from `a` = 1), applied
 * from the word's last letter backwards.
 *
 * The table is read from Lucene's own file format (Java's DataOutputStream: big-endian integers,
 * "modified UTF-8" strings), kept as flat typed arrays.
 */

/** One trie: rows of cells, each cell a letter with a command index and a next-row reference. */
interface Trie {
  forward: boolean;
  root: number;
  commands: string[];
  /** Row r's cells are `rowStart[r]` up to `rowStart[r + 1]`, sorted by letter. */
  rowStart: Int32Array;
  cellLetter: Uint16Array;
  cellCommand: Int32Array;
  cellRef: Int32Array;
}

/** One trie gives the whole command; several ("multi trie") give a part each. */
export interface StempelTable {
  multi: boolean;
  forward: boolean;
  tries: Trie[];
}

/** The end-of-command mark a trie gives where the word's command has no more parts. */
const END_OF_COMMAND = '*';

/** Reads a stemmer table as Lucene's `StempelStemmer.load` does: a method name, then one trie or several. */
export function readStempelTable(bytes: Uint8Array): StempelTable {
  const input = new DataInput(bytes);
  const method = input.utf().toUpperCase();
  if (!method.includes('M')) {
    const trie = readTrie(input);
    return { multi: false, forward: trie.forward, tries: [trie] };
  }
  const forward = input.boolean();
  input.int(); // the table's "BY" setting, used only when building it
  const tries: Trie[] = [];
  for (let n = input.int(); n > 0; n--) tries.push(readTrie(input));
  return { multi: true, forward, tries };
}

function readTrie(input: DataInput): Trie {
  const forward = input.boolean();
  const root = input.int();
  const commands: string[] = [];
  for (let n = input.int(); n > 0; n--) commands.push(input.utf());
  const rows = input.int();
  const rowStart = new Int32Array(rows + 1);
  const letters: number[] = [];
  const cmds: number[] = [];
  const refs: number[] = [];
  for (let r = 0; r < rows; r++) {
    rowStart[r] = letters.length;
    // Written from a TreeMap, so a row's cells come sorted by letter.
    for (let n = input.int(); n > 0; n--) {
      letters.push(input.char());
      cmds.push(input.int());
      input.int(); // how many commands the cell stood for before the table was reduced
      refs.push(input.int());
      input.int(); // letters to skip, used only by a full-word lookup
    }
  }
  rowStart[rows] = letters.length;
  return {
    forward,
    root,
    commands,
    rowStart,
    cellLetter: Uint16Array.from(letters),
    cellCommand: Int32Array.from(cmds),
    cellRef: Int32Array.from(refs),
  };
}

/** The cell of `letter` in row `row`, or -1. */
function cellOf(trie: Trie, row: number, letter: number): number {
  let low = trie.rowStart[row]!;
  let high = trie.rowStart[row + 1]! - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = trie.cellLetter[mid]!;
    if (at === letter) return mid;
    if (at < letter) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/**
 * Egothor's `Trie.getLastOnPath`: walks the key (from its end for a backward trie) and gives the
 * command of the deepest cell on the way that has one; null when none has, and undefined where
 * Java's walk would fail on an empty key.
 */
function lastOnPath(trie: Trie, key: string): string | null | undefined {
  if (key.length === 0) return undefined;
  let row = trie.root;
  let last: string | null = null;
  for (let i = 0; i < key.length; i++) {
    const letter = key.charCodeAt(trie.forward ? i : key.length - 1 - i);
    const cell = cellOf(trie, row, letter);
    const command = cell < 0 ? -1 : trie.cellCommand[cell]!;
    if (i === key.length - 1) return command >= 0 ? trie.commands[command]! : last;
    if (command >= 0) last = trie.commands[command]!;
    const ref = cell < 0 ? -1 : trie.cellRef[cell]!;
    if (ref < 0) return last;
    row = ref;
  }
  return last;
}

/** Egothor's `MultiTrie2.lengthPP`: how many letters of the word a command part covers. */
function coveredLength(command: string): number {
  let length = 0;
  for (let i = 0; i < command.length; i += 2) {
    const op = command[i];
    if (op === '-' || op === 'D') length += command.charCodeAt(i + 1) - 96;
    else if (op === 'R') length++;
  }
  return length;
}

/**
 * Egothor's `MultiTrie2.getLastOnPath`: the parts of the word's command, one per trie, joined;
 * a part that keeps letters (`-x`) moves the key past them (and past the part before it).
 * Where Java stops on an index out of range, the parts so far are the command.
 */
function commandOf(table: StempelTable, word: string): string | null {
  if (!table.multi) return lastOnPath(table.tries[0]!, word) ?? null;
  let result = '';
  let key = word;
  let lastKey = key;
  let lastLetter = ' ';
  let previous: string | undefined;
  const skip = (text: string, count: number): string | undefined => {
    if (count > text.length) return undefined;
    return table.forward ? text.slice(count) : text.slice(0, text.length - count);
  };
  for (const trie of table.tries) {
    const part = lastOnPath(trie, lastKey);
    if (part === undefined || part === null || part === END_OF_COMMAND) return result;
    if ((lastLetter === '-' || lastLetter === 'D') && lastLetter === part[0]) return result;
    if (part.length < 2) return result;
    lastLetter = part[part.length - 2]!;
    if (part[0] === '-') {
      if (previous !== undefined) {
        const cut = skip(key, coveredLength(previous));
        if (cut === undefined) return result;
        key = cut;
      }
      const cut = skip(key, coveredLength(part));
      if (cut === undefined) return result;
      key = cut;
    }
    previous = part;
    result += part;
    if (key.length !== 0) lastKey = key;
  }
  return result;
}

/**
 * Egothor's `Diff.apply`: the command run on the word from its last letter backwards. Where
 * Java's StringBuilder would throw (a position off the word), the word as patched so far stays.
 */
function applyCommand(word: string, command: string): string {
  const units = word.split('');
  let pos = units.length - 1;
  if (pos < 0) return word;
  for (let i = 0; i + 1 < command.length; i += 2) {
    const op = command[i];
    const param = command[i + 1]!;
    const count = command.charCodeAt(i + 1) - 96;
    if (op === '-') {
      pos = pos - count + 1;
    } else if (op === 'R') {
      if (pos < 0 || pos >= units.length) break;
      units[pos] = param;
    } else if (op === 'D') {
      const end = Math.min(pos + 1, units.length);
      pos -= count - 1;
      if (pos < 0 || pos > end) break;
      units.splice(pos, end - pos);
    } else if (op === 'I') {
      pos += 1;
      if (pos < 0 || pos > units.length) break;
      units.splice(pos, 0, param);
    }
    pos--;
  }
  return units.join('');
}

/** StempelStemmer.stem: the stem, or null where the table has no command or the stem is empty. */
export function stempelStem(table: StempelTable, word: string): string | null {
  const command = commandOf(table, word);
  if (command === null) return null;
  const stem = applyCommand(word, command);
  return stem.length > 0 ? stem : null;
}

/** Java's DataInputStream over bytes: big-endian, strings in "modified UTF-8". */
class DataInput {
  private offset = 0;
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  boolean(): boolean {
    return this.bytes[this.offset++] !== 0;
  }
  int(): number {
    const value = this.view.getInt32(this.offset);
    this.offset += 4;
    return value;
  }
  char(): number {
    const value = this.view.getUint16(this.offset);
    this.offset += 2;
    return value;
  }
  utf(): string {
    const end = this.offset + 2 + this.view.getUint16(this.offset);
    let at = this.offset + 2;
    const units: number[] = [];
    while (at < end) {
      const a = this.bytes[at++]!;
      if (a < 0x80) units.push(a);
      else if (a < 0xe0) units.push(((a & 0x1f) << 6) | (this.bytes[at++]! & 0x3f));
      else {
        const b = this.bytes[at++]!;
        units.push(((a & 0x0f) << 12) | ((b & 0x3f) << 6) | (this.bytes[at++]! & 0x3f));
      }
    }
    this.offset = end;
    return String.fromCharCode(...units);
  }
}
