import { readFileSync } from 'node:fs';

/** A commander option parser for a number >= 0. */
export function positiveNumberOption(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`expected a number >= 0, got "${text}"`);
  return value;
}

/** An option's text, or the contents of the file it names as `@path`. */
export function textOrFile(text: string): string {
  return text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text;
}
