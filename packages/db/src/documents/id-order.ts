/**
 * Document ids sort by raw UTF-8 bytes (= code points), as CouchDB's `_all_docs`: not ICU, and not
 * JavaScript's UTF-16 order, which puts astral characters before U+E000..U+FFFF.
 */
export { compareCodePoints as compareIds } from '../support/unicode.js';
