/**
 * The JSON text of an emitted key or value (what a row keeps and a query answers): the same as
 * `JSON.stringify`, with its commonest shapes — a string, an array of strings — written without
 * the generic serializer, which was ~5% of an index build's samples (issue #31). For JSON data
 * (what map functions emit: no `toJSON` members).
 */
export function rowJson(value: unknown): string {
  if (typeof value === 'string') return plainString(value) ? `"${value}"` : JSON.stringify(value);
  if (Array.isArray(value) && value.length <= 4) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'string' || !plainString(item)) return JSON.stringify(value);
      text += i === 0 ? `"${item}"` : `,"${item}"`;
    }
    return `${text}]`;
  }
  return JSON.stringify(value);
}

/** Whether JSON.stringify writes `s` as is between quotes: no control character, quote, backslash or surrogate. */
function plainString(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c < 0xe000)) return false;
  }
  return true;
}
