#!/bin/sh
# Records Lucene's tokens for each language's inputs (inputs/<language>.txt) into
# packages/db/test/fixtures/lucene-<language>.json. See README.md here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../../test/fixtures"
: "${LUCENE_DIR:?set LUCENE_DIR to the unpacked usr/share/maven-repo/org/apache/lucene folder}"
cp=""
for part in core analyzers-common analyzers-stempel analyzers-smartcn analyzers-kuromoji; do
  cp="$cp:$LUCENE_DIR/lucene-$part/8.7.0/lucene-$part-8.7.0.jar"
done
for language in ${*:-$(cd "$here/inputs" && ls | sed "s/\.txt$//")}; do
  java -cp "${cp#:}" "$here/LuceneTokens.java" "$language" "$here/inputs/$language.txt" > "$fixtures/lucene-$language.json"
  # The repository's formatter lays the JSON out as the lint check wants it.
  (cd "$here/../../../.." && npx biome format --write "$fixtures/lucene-$language.json" > /dev/null)
  echo "recorded $fixtures/lucene-$language.json"
done
