// A tool call a crash interrupted after its request may have gone out (an at-most-once call) asks a
// person what happened. Its approval proposes {tool, arguments, outcome: 'unknown'}; the answers are
// approve (it took effect), reject (it did not), or approve with {"run_again": true}. The door and
// the workflow check a modified action by this one rule.

/** The proposed action of a call whose outcome is unknown. */
export const unknownOutcome = 'unknown';

export const isOutcomeReview = (proposed: unknown): boolean =>
  typeof proposed === 'object' && proposed !== null && (proposed as { outcome?: unknown }).outcome === unknownOutcome;

/** Why a modified action cannot answer an outcome review; undefined for {"run_again": true}. */
export function outcomeReviewProblem(modified: string): string | undefined {
  let asked: { run_again?: unknown } | undefined;
  try {
    asked = JSON.parse(modified) as { run_again?: unknown } | undefined;
  } catch {
    asked = undefined;
  }
  return asked?.run_again === true ? undefined : 'the only modified action here is {"run_again": true}';
}
