// Reading the JSON object a model was asked for, as real models write it: bare, in a Markdown
// fence, or inside prose ("Here is the plan: {...}"), with keys in another case or under a known
// synonym, and keys nobody asked for. What had to be forgiven is noted, so the reading's outcome
// (clean or lenient) can be counted and told.

/** How a model's structured answer was read. */
export type ReadingOutcome = 'clean' | 'lenient' | 'repaired' | 'failed';

export interface Reading {
  outcome: ReadingOutcome;
  /** What was forgiven (lenient) or wrong (repaired: the first answer's errors; failed). */
  notes: string[];
}

/** Text that was to be a JSON plan or verdict and is not JSON at all. */
export class NotJson {
  constructor(
    readonly text: string,
    private readonly expected: string,
  ) {}

  /** What a person reads: what was expected, and how the answer began. */
  describe(): string {
    const start = this.text.replace(/\s+/g, ' ').slice(0, 80);
    return `the answer is not JSON (it begins "${start}${this.text.length > 80 ? '…' : ''}"); ${this.expected}`;
  }
}

const tryJson = (text: string): { value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
};

/** The first balanced `{...}` from `start` on that is JSON, strings and escapes respected. */
function objectFrom(text: string, start: number): { value: unknown; end: number } | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      const parsed = tryJson(text.slice(start, i + 1));
      return parsed && { value: parsed.value, end: i + 1 };
    }
  }
  return undefined;
}

/**
 * The JSON value of a model's answer: the whole answer, a fenced block, or else the first JSON
 * object inside the prose (noted). `expected` says what the answer should have been.
 */
export function findJson(text: string, expected: string, notes: string[]): unknown {
  const whole = tryJson(text.trim());
  if (whole) return whole.value;
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const inFence = fenced && tryJson(fenced[1]!.trim());
  if (inFence) return inFence.value;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
    const found = objectFrom(text, i);
    if (found) {
      notes.push('the JSON object was read from inside prose');
      return found.value;
    }
  }
  return new NotJson((fenced ? fenced[1]! : text).trim(), expected);
}

const squash = (key: string) => key.toLowerCase().replace(/[\s_-]/g, '');

/**
 * The object with each key under its canonical name: matched ignoring case, "_" and "-", or as a
 * known synonym. Keys that match none are dropped, and every change is noted (`path` names where).
 */
export function canonicalKeys(
  value: Record<string, unknown>,
  synonyms: Record<string, readonly string[]>,
  path: string,
  notes: string[],
): Record<string, unknown> {
  const byName = new Map<string, string>();
  for (const [canonical, others] of Object.entries(synonyms)) for (const name of [canonical, ...others]) byName.set(squash(name), canonical);
  const result: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const canonical = byName.get(squash(key));
    if (canonical === undefined || canonical in result) {
      notes.push(`dropped ${canonical === undefined ? 'unknown' : 'repeated'} key ${path}${key}`);
      continue;
    }
    if (canonical !== key) notes.push(`read ${path}${key} as ${canonical}`);
    result[canonical] = field;
  }
  return result;
}

/** An enumerated value in its canonical case ("medium" is MEDIUM), noted when it was not. */
export function canonicalCase(value: unknown, allowed: readonly string[], where: string, notes: string[]): unknown {
  if (typeof value !== 'string' || allowed.includes(value)) return value;
  const match = allowed.find((name) => name.toLowerCase() === value.trim().toLowerCase());
  if (match === undefined) return value;
  notes.push(`read ${where} "${value}" as ${match}`);
  return match;
}

/** A JSON object (not an array, not a NotJson). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
