/**
 * A constraint written `/[a-z]+/i` must stay case-insensitive inside the one regexp a route
 * compiles to, where a flag cannot be scoped to part of the pattern on Node 20. So its source
 * is rewritten to spell out both cases: `a` → `[aA]`, `[a-z]` → `[a-zA-Z]`.
 */

function swapCase(ch: string): string {
  const lower = ch.toLowerCase();
  return lower === ch ? ch.toUpperCase() : lower;
}

function isLetter(ch: string): boolean {
  return ch.toLowerCase() !== ch.toUpperCase();
}

/** The source of `re` with its `i` flag folded in; other regexps come back unchanged. */
export function inlineFlags(re: RegExp): string {
  if (!re.flags.includes('i')) return re.source;
  const src = re.source;
  let out = '';
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\\') {
      out += src.slice(i, i + 2);
      i += 2;
    } else if (ch === '[') {
      // A character class: copy it, then add the other case of each letter and letter range.
      let j = i + 1;
      if (src[j] === '^') j++;
      if (src[j] === ']') j++;
      let extra = '';
      while (j < src.length && src[j] !== ']') {
        if (src[j] === '\\') {
          j += 2;
          continue;
        }
        const from = src[j]!;
        if (src[j + 1] === '-' && j + 2 < src.length && src[j + 2] !== ']') {
          const to = src[j + 2]!;
          if (isLetter(from) && isLetter(to)) extra += `${swapCase(from)}-${swapCase(to)}`;
          j += 3;
        } else {
          if (isLetter(from)) extra += swapCase(from);
          j++;
        }
      }
      out += `${src.slice(i, j) + extra}]`;
      i = j + 1;
    } else if (isLetter(ch)) {
      out += `[${ch}${swapCase(ch)}]`;
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
