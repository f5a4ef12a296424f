/** Thrown for a mistake in a route declaration (Rails raises `ArgumentError` for the same). */
export class ArgumentError extends Error {
  override name = 'ArgumentError';
}
