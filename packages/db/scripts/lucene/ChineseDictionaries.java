// Converts SmartCN's dictionaries (Java-serialized arrays in Lucene's jar) into the plain binary
// files Divan reads (packages/db/dictionaries/chinese-*.bin.gz, gzip'd by dictionaries.sh).
// Big-endian throughout (Java's DataOutputStream). See README.md here.
//
// chinese-words.bin: int count; per first character: char c, int items; per item: short length
//   (-1: the character alone), its characters after the first, int frequency. Items in Lucene's order.
// chinese-bigrams.bin: int count; count longs (the FNV-1 hashes of "word1@word2", ascending);
//   count ints (their frequencies).
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.ObjectInputStream;
import java.util.Arrays;

public class ChineseDictionaries {
  public static void main(String[] args) throws Exception {
    String smart = args[0]; // the unzipped jar's org/apache/lucene/analysis/cn/smart/hhmm folder
    String out = args[1];
    try (ObjectInputStream in = new ObjectInputStream(new FileInputStream(smart + "/coredict.mem"));
        DataOutputStream data = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(out + "/chinese-words.bin")))) {
      short[] wordIndexTable = (short[]) in.readObject();
      char[] charIndexTable = (char[]) in.readObject();
      char[][][] words = (char[][][]) in.readObject();
      int[][] frequencies = (int[][]) in.readObject();
      int count = 0;
      for (int i = 0; i < charIndexTable.length; i++) if (charIndexTable[i] != 0 && wordIndexTable[i] >= 0) count++;
      data.writeInt(count);
      for (int i = 0; i < charIndexTable.length; i++) {
        if (charIndexTable[i] == 0 || wordIndexTable[i] < 0) continue;
        char[][] items = words[wordIndexTable[i]];
        int[] freqs = frequencies[wordIndexTable[i]];
        data.writeChar(charIndexTable[i]);
        data.writeInt(items.length);
        for (int j = 0; j < items.length; j++) {
          if (items[j] == null) data.writeShort(-1);
          else {
            data.writeShort(items[j].length);
            for (char c : items[j]) data.writeChar(c);
          }
          data.writeInt(freqs[j]);
        }
      }
    }
    try (ObjectInputStream in = new ObjectInputStream(new FileInputStream(smart + "/bigramdict.mem"));
        DataOutputStream data = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(out + "/chinese-bigrams.bin")))) {
      long[] hashes = (long[]) in.readObject();
      int[] freqs = (int[]) in.readObject();
      long[][] pairs = new long[hashes.length][];
      int n = 0;
      for (int i = 0; i < hashes.length; i++) if (hashes[i] != 0) pairs[n++] = new long[] {hashes[i], freqs[i]};
      pairs = Arrays.copyOf(pairs, n);
      Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
      data.writeInt(n);
      for (long[] p : pairs) data.writeLong(p[0]);
      for (long[] p : pairs) data.writeInt((int) p[1]);
    }
  }
}
