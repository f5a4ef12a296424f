// Records what a real Lucene analyzer makes of each line of an inputs file, as JSON, for Divan's
// analyzer tests (which compare against the recording and need no Java). See README.md here.
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;

public class LuceneTokens {
  public static void main(String[] args) throws Exception {
    String name = args[0];
    List<String> lines = Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8);
    Analyzer analyzer = switch (name) {
      case "polish" -> new org.apache.lucene.analysis.pl.PolishAnalyzer();
      case "chinese" -> new org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer();
      case "japanese" -> new org.apache.lucene.analysis.ja.JapaneseAnalyzer();
      default -> throw new IllegalArgumentException("no analyzer " + name);
    };
    StringBuilder out = new StringBuilder();
    out.append("{\n  \"lucene\": \"").append(org.apache.lucene.util.Version.LATEST).append("\",\n");
    out.append("  \"analyzer\": \"").append(name).append("\",\n  \"cases\": [");
    boolean first = true;
    for (String line : lines) {
      if (line.isEmpty() || line.startsWith("#")) continue;
      String text = unescaped(line);
      out.append(first ? "\n" : ",\n").append("    [").append(json(text)).append(", [");
      first = false;
      try (TokenStream stream = analyzer.tokenStream("f", new StringReader(text))) {
        CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
        PositionIncrementAttribute increment = stream.addAttribute(PositionIncrementAttribute.class);
        stream.reset();
        int position = -1;
        boolean firstToken = true;
        while (stream.incrementToken()) {
          position += increment.getPositionIncrement();
          out.append(firstToken ? "" : ", ").append(json(term.toString() + "@" + position));
          firstToken = false;
        }
        stream.end();
      }
      out.append("]]");
    }
    out.append("\n  ]\n}\n");
    System.out.print(out);
  }

  /** `\\n` is a line break and `\\uXXXX` that UTF-16 unit (a lone surrogate too); the rest as it is. */
  static String unescaped(String line) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\\' && i + 1 < line.length() && line.charAt(i + 1) == 'n') {
        b.append('\n');
        i++;
      } else if (c == '\\' && i + 5 < line.length() && line.charAt(i + 1) == 'u'
          && line.substring(i + 2, i + 6).matches("[0-9a-fA-F]{4}")) {
        b.append((char) Integer.parseInt(line.substring(i + 2, i + 6), 16));
        i += 5;
      } else b.append(c);
    }
    return b.toString();
  }

  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean paired = Character.isHighSurrogate(c) ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
          : Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20 || (Character.isSurrogate(c) && !paired)) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
}
