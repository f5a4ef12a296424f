/**
 * The texts to try compiling as a function expression `(text)`, best first: the source as
 * given, then without what may trail the function (semicolons, whitespace, comments). CouchDB's
 * query server compiles a source as a program and takes its function, so `function (doc) {…};`
 * or `function (doc) {…}; // note` compile there. Used by the design-document syntax check on
 * save and, as source text, by the sandbox runtime (./runtime.ts): it must stay self-contained.
 */
export function sourceCandidates(source: string): string[] {
  const out = [source];
  const seen = new Set(out);
  const work = [source];
  while (work.length > 0 && out.length < 16) {
    let text = work.pop()!;
    for (;;) {
      text = text.replace(/[\s;]+$/, '');
      if (!text.endsWith('*/')) break;
      const open = text.lastIndexOf('/*');
      if (open < 0) break;
      text = text.slice(0, open);
    }
    if (!seen.has(text)) {
      seen.add(text);
      out.push(text);
    }
    // A line comment at the end: cut at each `//` of the last line (one of them starts it).
    const line = text.lastIndexOf('\n') + 1;
    for (let at = text.indexOf('//', line); at >= 0; at = text.indexOf('//', at + 2)) work.push(text.slice(0, at));
  }
  return out;
}
