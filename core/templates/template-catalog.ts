import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { checkPlan, planSchema, type Plan } from '../orchestration/plan';

// Task templates: named, versioned plans kept as YAML files. ListTemplates lists them; a SubmitTask
// whose context names one (`template`, optionally `template_version`) runs its plan as COMPLEX.

export interface TaskTemplate {
  name: string;
  version: string;
  description: string;
  /** `name@version`: what a submission may name to pin one version. */
  key: string;
  /** SHA-256 of the file, so a caller can tell when a template changed. */
  contentHash: string;
  plan: Plan;
}

const templateFileSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 lowercase letters, digits, "_" or "-"'),
  version: z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a semantic version like 1.0.0'),
  description: z.string().default(''),
  agents: planSchema.shape.agents,
});

export interface TemplateCatalog {
  list(): TaskTemplate[];
  /** The newest version of `name`, or exactly `version`; undefined when there is none. */
  find(name: string, version?: string): TaskTemplate | undefined;
}

const byVersion = (a: TaskTemplate, b: TaskTemplate) => {
  const [x, y] = [a.version.split('.').map(Number), b.version.split('.').map(Number)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
};

/** Loads every `*.yaml` template in `dir`; a broken template stops start-up with its file named. */
export function loadTemplateCatalog(dir: string, knownTools: readonly string[]): TemplateCatalog {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
    .sort();
  const templates = files.map((file): TaskTemplate => {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const parsed = templateFileSchema.safeParse(parseYaml(text));
    if (!parsed.success) throw new Error(`template ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const check = checkPlan({ agents: parsed.data.agents }, knownTools);
    if (!check.ok) throw new Error(`template ${file}: ${check.errors.join('; ')}`);
    const { name, version, description } = parsed.data;
    return { name, version, description, key: `${name}@${version}`, contentHash: createHash('sha256').update(text).digest('hex'), plan: check.plan };
  });
  const keys = new Set<string>();
  for (const template of templates) {
    if (keys.has(template.key)) throw new Error(`template ${template.key} is defined twice in ${dir}`);
    keys.add(template.key);
  }
  templates.sort((a, b) => a.name.localeCompare(b.name) || byVersion(a, b));
  return {
    list: () => templates,
    find: (name, version) => {
      const matching = templates.filter((t) => t.name === name && (version === undefined || t.version === version));
      return matching.at(-1);
    },
  };
}
