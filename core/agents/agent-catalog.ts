import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeErrors } from '../tools/registry';

// Named agents: a task shape kept as a YAML file (what the agent does, the tools it may use, the
// input it takes and the prompt that input fills in), which Shannon's /api/v1/agents lists and runs.
// Running one is a single-agent task with only the agent's tools.

const agentFileSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 lowercase letters, digits, "_" or "-"'),
  name: z.string().min(1),
  description: z.string().default(''),
  category: z.string().default('general'),
  tools: z.array(z.string()).default([]),
  /** A JSON schema of an object: what a caller gives the agent. */
  input_schema: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
  /** The task's query: `{{field}}` is replaced by the input's field. */
  prompt: z.string().min(1),
  max_iterations: z.number().int().positive().max(100).optional(),
  cost_per_call: z.number().nonnegative().default(0),
});

export type AgentDefinition = z.infer<typeof agentFileSchema>;

export class AgentInputError extends Error {
  readonly permanent = true;
}

export interface AgentCatalog {
  list(): AgentDefinition[];
  find(id: string): AgentDefinition | undefined;
  /** The agent's query for `input`, which must match its input schema (AgentInputError says why not). */
  promptFor(agent: AgentDefinition, input: unknown): string;
}

const fieldText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Loads every `*.yaml` agent in `dir`; a broken one, or one naming an unknown tool, stops start-up with its file named. */
export function loadAgentCatalog(dir: string, knownTools: readonly string[]): AgentCatalog {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
    .sort();
  const agents = new Map<string, { agent: AgentDefinition; validate: ValidateFunction }>();
  for (const file of files) {
    const parsed = agentFileSchema.safeParse(parseYaml(readFileSync(path.join(dir, file), 'utf8')));
    if (!parsed.success) throw new Error(`agent ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const agent = parsed.data;
    const unknown = agent.tools.filter((tool) => !knownTools.includes(tool));
    if (unknown.length > 0) throw new Error(`agent ${file}: unknown tools ${unknown.join(', ')}`);
    if (agents.has(agent.id)) throw new Error(`agent ${agent.id} is defined twice in ${dir}`);
    agents.set(agent.id, { agent, validate: ajv.compile(agent.input_schema) });
  }
  return {
    list: () => [...agents.values()].map((entry) => entry.agent),
    find: (id) => agents.get(id)?.agent,
    promptFor(agent, input) {
      const entry = agents.get(agent.id)!;
      if (!entry.validate(input)) throw new AgentInputError(`input: ${describeErrors(entry.validate)}`);
      const fields = (input ?? {}) as Record<string, unknown>;
      return agent.prompt.replace(/\{\{\s*(\w+)\s*\}\}/g, (_whole, name: string) => (fields[name] === undefined ? '' : fieldText(fields[name])));
    },
  };
}
