/** True when an object has no enumerable key (or is missing): a for-in that stops at once, no key array. */
export function isEmpty(value: object | undefined): boolean {
  for (const _ in value) return false;
  return true;
}
