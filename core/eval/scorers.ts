import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { findJson, NotJson } from '../orchestration/model-json';

// How an eval scores a candidate's answer: against an expectation a case states, or against the
// answer the recorded task gave. Every scorer gives 0..1 and says why; all but the judge are
// deterministic and score 0 or 1.

export const expectationSchema = z.union([
  z.strictObject({ exact: z.string() }),
  z.strictObject({ normalised: z.string() }),
  z.strictObject({ contains: z.string() }),
  z.strictObject({ json: z.unknown().refine((value) => value !== undefined, 'give the JSON value the answer must equal') }),
  z.strictObject({ numeric: z.number(), tolerance: z.number().nonnegative().default(0) }),
  z.strictObject({ regex: z.string().refine(isRegex, 'must be a valid regular expression') }),
  z.strictObject({ judge: z.string().min(1, 'give the rubric the judge scores by') }),
]);
export type Expectation = z.input<typeof expectationSchema>;

/** The scorers a command line may name; each compares with the recorded answer, the judge by its rubric. */
export const scorerKinds = ['exact', 'normalised', 'contains', 'json', 'numeric', 'regex', 'judge'] as const;
export type ScorerKind = (typeof scorerKinds)[number];

export interface Score {
  scorer: ScorerKind;
  /** 0..1. */
  score: number;
  reason: string;
}

/** Scores an answer by a rubric with a model (judge.ts): its calls are recorded like any task's. */
export type Judge = (rubric: string, question: string, answer: string, reference: string) => Promise<{ score: number; reason: string }>;

function isRegex(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Case, whitespace, and punctuation at the ends folded: "  Paris. " reads as "paris". */
const normalise = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s"'`.,;:!?]+|[\s"'`.,;:!?]+$/g, '');

const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);

const verdict = (scorer: ScorerKind, pass: boolean, why: string): Score => ({ scorer, score: pass ? 1 : 0, reason: why });

/** The first number the answer states (1,234.5 and -3 read as numbers). */
function firstNumber(text: string): number | undefined {
  const found = /-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(text);
  return found ? Number(found[0].replace(/,/g, '')) : undefined;
}

function jsonScore(answer: string, expected: unknown): Score {
  const value = findJson(answer, 'the answer must hold JSON', []);
  if (value instanceof NotJson) return verdict('json', false, value.describe());
  return verdict('json', isDeepStrictEqual(value, expected), isDeepStrictEqual(value, expected) ? 'the JSON is equal' : 'the JSON differs');
}

/**
 * The answer's score against the expectation; `question` and `reference` (the recorded answer) are
 * what a judge is shown.
 */
export async function score(expectation: Expectation, answer: string, context: { question: string; reference: string; judge: Judge }): Promise<Score> {
  const expect = expectationSchema.parse(expectation);
  if ('exact' in expect) return verdict('exact', answer === expect.exact, answer === expect.exact ? 'the same text' : `not exactly ${quoted(expect.exact)}`);
  if ('normalised' in expect) {
    const same = normalise(answer) === normalise(expect.normalised);
    return verdict('normalised', same, same ? 'the same text, case and spacing aside' : `not ${quoted(expect.normalised)}`);
  }
  if ('contains' in expect) {
    const has = normalise(answer).includes(normalise(expect.contains));
    return verdict('contains', has, has ? `contains ${quoted(expect.contains)}` : `does not contain ${quoted(expect.contains)}`);
  }
  if ('json' in expect) return jsonScore(answer, expect.json);
  if ('numeric' in expect) {
    const found = firstNumber(answer);
    if (found === undefined) return verdict('numeric', false, 'the answer states no number');
    const within = Math.abs(found - expect.numeric) <= expect.tolerance;
    return verdict('numeric', within, `${found} is ${within ? 'within' : 'outside'} ${expect.tolerance} of ${expect.numeric}`);
  }
  if ('regex' in expect) {
    const matches = new RegExp(expect.regex).test(answer);
    return verdict('regex', matches, `${matches ? 'matches' : 'does not match'} /${expect.regex}/`);
  }
  const judged = await context.judge(expect.judge, context.question, answer, context.reference);
  return { scorer: 'judge', score: judged.score, reason: judged.reason };
}

/**
 * The expectation a scorer named on the command line sets: what `given` says (a regex's pattern, a
 * judge's rubric; required for those two), else the recorded answer.
 */
export function expectationOf(kind: ScorerKind, recorded: string, given?: string, tolerance = 0): Expectation {
  const target = given ?? recorded;
  switch (kind) {
    case 'exact':
      return { exact: target };
    case 'normalised':
      return { normalised: target };
    case 'contains':
      return { contains: target };
    case 'json': {
      const value = findJson(target, 'compare JSON with JSON', []);
      if (value instanceof NotJson) throw new Error(`--scorer json: ${value.describe()}`);
      return { json: value };
    }
    case 'numeric': {
      const number = firstNumber(target);
      if (number === undefined) throw new Error(`--scorer numeric: ${given === undefined ? 'the recorded answer' : '--expect'} states no number`);
      return { numeric: number, tolerance };
    }
    case 'regex':
    case 'judge':
      if (given === undefined) throw new Error(`--scorer ${kind} needs --expect (${kind === 'regex' ? 'the pattern' : 'the rubric'})`);
      return kind === 'regex' ? { regex: given } : { judge: given };
  }
}
