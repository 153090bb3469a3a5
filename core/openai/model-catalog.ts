import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { modelTiers } from '../orchestration/plan';

// The models an OpenAI client can name (openai-models.yaml): each is a way of running a Weft task,
// as Shannon's openai_models.yaml has it. `standard` is one agent with tools; `auto` lets the
// complexity analysis decompose the task into a plan of agents.

const modelSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be 1-64 lowercase letters, digits, ".", "_" or "-"'),
  description: z.string().default(''),
  mode: z.enum(['standard', 'auto']).default('standard'),
  /** The tier its model steps use; the task default (MEDIUM) when absent. */
  model_tier: z
    .string()
    .transform((tier) => tier.toUpperCase())
    .pipe(z.enum(modelTiers))
    .optional(),
  /** Only these tools are offered; every registered tool when absent. */
  tools: z.array(z.string()).optional(),
  /** Other names it answers to (Shannon's model names, say). */
  aliases: z.array(z.string()).default([]),
});

const catalogSchema = z.strictObject({
  default_model: z.string(),
  models: z.array(modelSchema).min(1),
});

export type OpenAiModel = z.infer<typeof modelSchema>;

export interface OpenAiModelCatalog {
  list(): OpenAiModel[];
  /** By id or alias; the default model for an empty name. */
  find(name: string): OpenAiModel | undefined;
  /** When the file was read: each model's `created`. */
  loadedAt: Date;
}

/** Reads the catalog; a broken file, or one naming an unknown tool or default, stops start-up with the file named. */
export function loadOpenAiModelCatalog(file: string, knownTools: readonly string[]): OpenAiModelCatalog {
  const parsed = catalogSchema.safeParse(parseYaml(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const byName = new Map<string, OpenAiModel>();
  for (const model of parsed.data.models) {
    const unknown = (model.tools ?? []).filter((tool) => !knownTools.includes(tool));
    if (unknown.length > 0) throw new Error(`${file}: model ${model.id} names unknown tools ${unknown.join(', ')}`);
    for (const name of [model.id, ...model.aliases]) {
      if (byName.has(name)) throw new Error(`${file}: the model name ${name} is given twice`);
      byName.set(name, model);
    }
  }
  const fallback = byName.get(parsed.data.default_model);
  if (!fallback) throw new Error(`${file}: default_model ${parsed.data.default_model} is not one of its models`);
  return {
    list: () => parsed.data.models,
    find: (name) => (name === '' ? fallback : byName.get(name)),
    loadedAt: new Date(),
  };
}
