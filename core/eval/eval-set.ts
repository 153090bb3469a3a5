import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { expectationSchema, scorerKinds } from './scorers';

// An eval set: cases a team keeps beside its templates (evals/<name>.yaml), each naming recorded
// work (a task id, or the newest production task that asked a query) and, optionally, what its
// answer must be. A case without an expectation is scored against its recorded answer by the
// set's scorer.

const caseSchema = z
  .strictObject({
    name: z.string().min(1).optional(),
    task: z.string().min(1).optional(),
    query: z.string().min(1).optional(),
    expect: expectationSchema.optional(),
  })
  .refine((c) => (c.task === undefined) !== (c.query === undefined), 'give a case either task (a task id) or query (its newest recorded task)');

const evalSetSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 lowercase letters, digits, "_" or "-"'),
  description: z.string().default(''),
  scorer: z.enum(scorerKinds).exclude(['regex', 'judge']).default('normalised'),
  cases: z.array(caseSchema).min(1, 'an eval set needs at least one case'),
});

export type EvalSet = z.infer<typeof evalSetSchema>;
export type EvalCase = EvalSet['cases'][number];

/** The set at `nameOrPath` (a file, or a set's name in `evalsDir`); a broken file is refused with its problems named. */
export function loadEvalSet(nameOrPath: string, evalsDir: string): EvalSet {
  const file = existsSync(nameOrPath) ? nameOrPath : path.join(evalsDir, `${nameOrPath}.yaml`);
  if (!existsSync(file)) throw new Error(`eval set ${nameOrPath} not found (neither a file nor ${file})`);
  const parsed = evalSetSchema.safeParse(parseYaml(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`eval set ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
