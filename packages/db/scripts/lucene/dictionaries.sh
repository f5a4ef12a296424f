#!/bin/sh
# Converts Lucene's analyzer data into packages/db/dictionaries/ (once; the results are committed).
# See README.md here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../dictionaries"
: "${LUCENE_DIR:?set LUCENE_DIR to the unpacked usr/share/maven-repo/org/apache/lucene folder}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for part in stempel smartcn kuromoji; do
  mkdir -p "$work/$part"
  (cd "$work/$part" && unzip -q -o "$LUCENE_DIR/lucene-analyzers-$part/8.7.0/lucene-analyzers-$part-8.7.0.jar")
done
# Polish: Stempel's table as it is (Java DataOutputStream format), gzip'd.
gzip -9 -n -c "$work/stempel/org/apache/lucene/analysis/pl/stemmer_20000.tbl" > "$out/polish-stempel.tbl.gz"
# Chinese: SmartCN's Java-serialized word and pair dictionaries, written plain by ChineseDictionaries.java, gzip'd.
java "$here/ChineseDictionaries.java" "$work/smartcn/org/apache/lucene/analysis/cn/smart/hhmm" "$work"
gzip -9 -n -c "$work/chinese-words.bin" > "$out/chinese-words.bin.gz"
gzip -9 -n -c "$work/chinese-bigrams.bin" > "$out/chinese-bigrams.bin.gz"
# Japanese: Kuromoji's IPADIC as Lucene's own dictionary classes read it, written plain by
# JapaneseDictionaries.java (its header gives the format), gzip'd.
cp="$LUCENE_DIR/lucene-core/8.7.0/lucene-core-8.7.0.jar:$LUCENE_DIR/lucene-analyzers-common/8.7.0/lucene-analyzers-common-8.7.0.jar"
java -cp "$cp:$LUCENE_DIR/lucene-analyzers-kuromoji/8.7.0/lucene-analyzers-kuromoji-8.7.0.jar" "$here/JapaneseDictionaries.java" "$work/japanese-ipadic.bin"
gzip -9 -n -c "$work/japanese-ipadic.bin" > "$out/japanese-ipadic.bin.gz"
cp "$work/stempel/META-INF/LICENSE.txt" "$out/LICENSE.txt"
cp "$work/stempel/META-INF/NOTICE.txt" "$out/NOTICE.txt"
ls -l "$out"
