// Writes Kuromoji's IPADIC (as Lucene 8's JapaneseTokenizer reads it from its jar) in one plain
// binary file, for Divan's `japanese` analyzer (src/search/analyzers/kuromoji-dictionary.ts reads
// it). Run by dictionaries.sh with the kuromoji and core jars on the class path: the values come
// from Lucene's own dictionary classes, so the file holds exactly what the tokenizer looks up.
//
// Format (little-endian; a string is a u16 count of UTF-8 bytes, then the bytes):
//   "IPADIC1\n"
//   u16 forwardSize, u16 backwardSize, then per forward id (a word's right id) per backward id (the
//     next word's left id) i16 cost - the cost before it in the row (0 for the first)
//   u8 classCount, per class u8 flags (1 invoke, 2 group, 4 kanji)
//   u8 class[65536] (CharacterDefinition.getCharacterClass of every char)
//   u8 punctuation[8192] (JapaneseTokenizer.isPunctuation of every char as a bit, low bit first)
//   u32 posCount, string pos[posCount]
//   u32 entryCount, per entry u16 leftId (= rightId), i16 wordCost, u16 pos
//   per class u32 firstEntry, u16 entries (the unknown-word entries of that character class)
//   u32 baseFormCount, per base form u32 entry and u8 length (only entries that have one, in
//     entry order), then u16 units of every base form
//   u32 surfaceCount, per surface (sorted by UTF-16 units) u8 sharedPrefix, u8 suffixLength,
//     u8 entries (its entries follow the previous surface's), then u16 units of every suffix
//   u32 stopWordCount, string stopWord[...]; u32 stopTagCount, string stopTag[...]
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.ja.JapaneseAnalyzer;
import org.apache.lucene.analysis.ja.dict.CharacterDefinition;
import org.apache.lucene.analysis.ja.dict.ConnectionCosts;
import org.apache.lucene.analysis.ja.dict.TokenInfoDictionary;
import org.apache.lucene.analysis.ja.dict.TokenInfoFST;
import org.apache.lucene.analysis.ja.dict.UnknownDictionary;
import org.apache.lucene.util.IntsRef;
import org.apache.lucene.util.fst.FST;
import org.apache.lucene.util.fst.IntsRefFSTEnum;

public class JapaneseDictionaries {
  static final ByteArrayOutputStream out = new ByteArrayOutputStream();

  static void u8(int v) { out.write(v & 0xff); }
  static void u16(int v) { u8(v); u8(v >> 8); }
  static void u32(int v) { u16(v); u16(v >> 16); }
  static void string(String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    u16(bytes.length);
    out.write(bytes, 0, bytes.length);
  }

  static final List<String> posNames = new ArrayList<>();
  static final Map<String, Integer> posIndex = new HashMap<>();

  static int pos(String name) {
    return posIndex.computeIfAbsent(name, n -> { posNames.add(n); return posNames.size() - 1; });
  }

  public static void main(String[] args) throws Exception {
    TokenInfoDictionary dictionary = TokenInfoDictionary.getInstance();
    UnknownDictionary unknown = UnknownDictionary.getInstance();
    CharacterDefinition characters = unknown.getCharacterDefinition();
    ConnectionCosts costs = ConnectionCosts.getInstance();

    // Every surface form with its word ids, in the FST's (UTF-16 unit) order.
    TokenInfoFST tokenInfoFST = dictionary.getFST();
    Method internal = TokenInfoFST.class.getDeclaredMethod("getInternalFST");
    internal.setAccessible(true);
    @SuppressWarnings("unchecked")
    FST<Long> fst = (FST<Long>) internal.invoke(tokenInfoFST);
    IntsRefFSTEnum<Long> surfaces = new IntsRefFSTEnum<>(fst);
    List<String> surfaceForms = new ArrayList<>();
    List<int[]> surfaceWords = new ArrayList<>();
    IntsRefFSTEnum.InputOutput<Long> next;
    while ((next = surfaces.next()) != null) {
      StringBuilder surface = new StringBuilder();
      for (int i = 0; i < next.input.length; i++) surface.append((char) next.input.ints[next.input.offset + i]);
      IntsRef ids = new IntsRef();
      dictionary.lookupWordIds(next.output.intValue(), ids);
      surfaceForms.add(surface.toString());
      surfaceWords.add(java.util.Arrays.copyOfRange(ids.ints, ids.offset, ids.offset + ids.length));
    }

    // Entries: the known words in surface order, then the unknown words by character class.
    ByteArrayOutputStream entries = new ByteArrayOutputStream();
    List<Integer> baseFormEntries = new ArrayList<>();
    List<String> baseForms = new ArrayList<>();
    int entryCount = 0;
    for (int s = 0; s < surfaceForms.size(); s++) {
      char[] surface = surfaceForms.get(s).toCharArray();
      for (int wordId : surfaceWords.get(s)) {
        if (dictionary.getLeftId(wordId) != dictionary.getRightId(wordId)) throw new IllegalStateException("left != right");
        entry(entries, dictionary.getLeftId(wordId), dictionary.getWordCost(wordId), pos(dictionary.getPartOfSpeech(wordId)));
        String baseForm = dictionary.getBaseForm(wordId, surface, 0, surface.length);
        if (baseForm != null) {
          baseFormEntries.add(entryCount);
          baseForms.add(baseForm);
        }
        entryCount++;
      }
    }
    int[] classFirst = new int[CharacterDefinition.CLASS_COUNT];
    int[] classCount = new int[CharacterDefinition.CLASS_COUNT];
    for (int c = 0; c < CharacterDefinition.CLASS_COUNT; c++) {
      IntsRef ids = new IntsRef();
      unknown.lookupWordIds(c, ids);
      classFirst[c] = entryCount;
      classCount[c] = ids.length;
      for (int i = 0; i < ids.length; i++) {
        int wordId = ids.ints[ids.offset + i];
        if (unknown.getLeftId(wordId) != unknown.getRightId(wordId)) throw new IllegalStateException("left != right");
        if (unknown.getBaseForm(wordId, new char[] {'x'}, 0, 1) != null) throw new IllegalStateException("unknown base form");
        entry(entries, unknown.getLeftId(wordId), unknown.getWordCost(wordId), pos(unknown.getPartOfSpeech(wordId)));
        entryCount++;
      }
    }

    out.write("IPADIC1\n".getBytes(StandardCharsets.US_ASCII));
    // Connection costs: find the matrix's size by probing (ConnectionCosts does not expose it).
    int size = 0;
    while (true) {
      try { costs.get(size, 0); costs.get(0, size); size++; } catch (IndexOutOfBoundsException e) { break; }
    }
    u16(size);
    u16(size);
    for (int f = 0; f < size; f++) {
      // Each row as differences from the cost before it: gzip packs those ~20% smaller.
      int previous = 0;
      for (int b = 0; b < size; b++) {
        int cost = costs.get(f, b);
        u16(cost - previous);
        previous = cost;
      }
    }

    u8(CharacterDefinition.CLASS_COUNT);
    int[] flags = new int[CharacterDefinition.CLASS_COUNT];
    boolean[] seen = new boolean[CharacterDefinition.CLASS_COUNT];
    byte[] classes = new byte[65536];
    for (int ch = 0; ch < 65536; ch++) {
      int c = characters.getCharacterClass((char) ch);
      classes[ch] = (byte) c;
      int f = (characters.isInvoke((char) ch) ? 1 : 0) | (characters.isGroup((char) ch) ? 2 : 0) | (characters.isKanji((char) ch) ? 4 : 0);
      if (seen[c] && flags[c] != f) throw new IllegalStateException("class flags differ within class " + c);
      seen[c] = true;
      flags[c] = f;
    }
    for (int f : flags) u8(f);
    out.write(classes, 0, classes.length);
    byte[] punctuation = new byte[8192];
    for (int ch = 0; ch < 65536; ch++) if (isPunctuation((char) ch)) punctuation[ch >> 3] |= (byte) (1 << (ch & 7));
    out.write(punctuation, 0, punctuation.length);

    u32(posNames.size());
    for (String p : posNames) string(p);
    u32(entryCount);
    entries.writeTo(out);
    for (int c = 0; c < CharacterDefinition.CLASS_COUNT; c++) { u32(classFirst[c]); u16(classCount[c]); }
    u32(baseForms.size());
    for (int i = 0; i < baseForms.size(); i++) {
      if (baseForms.get(i).length() > 255) throw new IllegalStateException("base form too long");
      u32(baseFormEntries.get(i));
      u8(baseForms.get(i).length());
    }
    for (String baseForm : baseForms) for (int i = 0; i < baseForm.length(); i++) u16(baseForm.charAt(i));

    u32(surfaceForms.size());
    StringBuilder suffixes = new StringBuilder();
    String previous = "";
    for (int s = 0; s < surfaceForms.size(); s++) {
      String surface = surfaceForms.get(s);
      int shared = 0;
      while (shared < Math.min(previous.length(), surface.length()) && shared < 255 && previous.charAt(shared) == surface.charAt(shared)) shared++;
      int suffix = surface.length() - shared;
      if (suffix > 255 || surfaceWords.get(s).length > 255) throw new IllegalStateException("surface too long: " + surface);
      u8(shared);
      u8(suffix);
      u8(surfaceWords.get(s).length);
      suffixes.append(surface, shared, surface.length());
      previous = surface;
    }
    for (int i = 0; i < suffixes.length(); i++) u16(suffixes.charAt(i));

    CharArraySet stopWords = JapaneseAnalyzer.getDefaultStopSet();
    List<String> words = new ArrayList<>();
    for (Object w : stopWords) words.add(new String((char[]) w));
    java.util.Collections.sort(words);
    u32(words.size());
    for (String w : words) string(w);
    List<String> tags = new ArrayList<>(JapaneseAnalyzer.getDefaultStopTags());
    java.util.Collections.sort(tags);
    u32(tags.size());
    for (String t : tags) string(t);

    try (FileOutputStream file = new FileOutputStream(args[0])) { out.writeTo(file); }
    System.err.println("surfaces " + surfaceForms.size() + ", entries " + entryCount + ", base forms " + baseForms.size()
        + ", parts of speech " + posNames.size() + ", costs " + size + "x" + size + ", stop words " + words.size() + ", stop tags " + tags.size());
  }

  static void entry(ByteArrayOutputStream entries, int leftId, int cost, int pos) {
    entries.write(leftId & 0xff); entries.write(leftId >> 8);
    entries.write(cost & 0xff); entries.write((cost >> 8) & 0xff);
    entries.write(pos & 0xff); entries.write(pos >> 8);
  }

  // JapaneseTokenizer.isPunctuation (private there), by Java's own character types.
  static boolean isPunctuation(char ch) {
    switch (Character.getType(ch)) {
      case Character.SPACE_SEPARATOR: case Character.LINE_SEPARATOR: case Character.PARAGRAPH_SEPARATOR:
      case Character.CONTROL: case Character.FORMAT: case Character.DASH_PUNCTUATION: case Character.START_PUNCTUATION:
      case Character.END_PUNCTUATION: case Character.CONNECTOR_PUNCTUATION: case Character.OTHER_PUNCTUATION:
      case Character.MATH_SYMBOL: case Character.CURRENCY_SYMBOL: case Character.MODIFIER_SYMBOL: case Character.OTHER_SYMBOL:
      case Character.INITIAL_QUOTE_PUNCTUATION: case Character.FINAL_QUOTE_PUNCTUATION:
        return true;
      default:
        return false;
    }
  }
}
