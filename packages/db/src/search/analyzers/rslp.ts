/**
 * The RSLP stemmers' machinery (Orengo and Huyck's "Removedor de Sufixos da Lingua Portuguesa",
 * as Lucene's RSLPStemmerBase runs a rule table): a step is an ordered list of rules; the first
 * rule whose suffix the word ends with, leaving a stem of at least its minimum, and whose
 * exceptions do not hold, replaces that suffix and ends the step.
 */

/** Suffix, minimum stem length (before the replacement), replacement, exceptions. */
export type RslpRule = readonly [string, number, string, (readonly string[])?];

export interface RslpStep {
  /** Words shorter than this skip the step. */
  readonly min: number;
  /** Exceptions are whole words (true) or endings (false). */
  readonly wholeWord: boolean;
  /** When any, the word must end with one of them to enter the step. */
  readonly conditions: readonly string[];
  readonly rules: readonly RslpRule[];
}

/** A step; a minimum of 0 is the smallest suffix plus stem any rule needs, as Lucene computes it. */
export function rslpStep(
  min: number,
  wholeWord: boolean,
  conditions: readonly string[],
  rules: readonly RslpRule[],
): RslpStep {
  const computed = min !== 0 ? min : Math.min(...rules.map(([suffix, stem]) => stem + suffix.length));
  return { min: computed, wholeWord, conditions, rules };
}

/** The word after one step (the same word when no rule fires). */
export function applyRslpStep(step: RslpStep, word: string): string {
  if (word.length < step.min) return word;
  if (step.conditions.length > 0 && !step.conditions.some((c) => word.endsWith(c))) return word;
  for (const [suffix, stem, replacement, exceptions] of step.rules) {
    if (word.length - suffix.length < stem || !word.endsWith(suffix)) continue;
    if (exceptions !== undefined) {
      const excepted = step.wholeWord ? exceptions.includes(word) : exceptions.some((e) => word.endsWith(e));
      if (excepted) continue;
    }
    return word.slice(0, word.length - suffix.length) + replacement;
  }
  return word;
}
