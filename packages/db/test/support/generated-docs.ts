/**
 * Documents for the native mappers' property tests (views' map functions, search's index
 * functions): the members a test's functions read, holding scalars, arrays and small objects.
 */
import fc from 'fast-check';

export interface GeneratedDocs {
  /** Scalar values the members hold. */
  scalar: fc.Arbitrary<unknown>;
  /** Names of the members of nested objects. */
  nested: readonly string[];
  /** Names of the document's top-level members. */
  members: readonly string[];
  /** Members every document starts with (`_id`, ...). */
  base: Record<string, unknown>;
}

/** Document texts made of `members` (up to 6), each a scalar, an array or an object of `nested` members. */
export function generatedDocs({ scalar, nested, members, base }: GeneratedDocs): fc.Arbitrary<string> {
  const value = fc.letrec((tie) => ({
    value: fc.oneof(
      { weight: 5, arbitrary: scalar },
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...nested), tie('value'), { maxKeys: 2 }) },
    ),
  })).value;
  return fc
    .dictionary(fc.constantFrom(...members), value, { maxKeys: 6 })
    .map((body) => JSON.stringify({ ...base, ...body }));
}
