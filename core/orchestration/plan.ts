import { z } from 'zod';
import { canonicalCase, canonicalKeys, findJson, isRecord, NotJson, type Reading } from './model-json';

// A COMPLEX task's plan: agent tasks with dependencies, tools and model tiers. Plans come from a
// model, from the caller's manual_decomposition, or from an approver's modified_action; all three
// are validated by the same rules.

export const modelTiers = ['SMALL', 'MEDIUM', 'LARGE'] as const;
export type ModelTier = (typeof modelTiers)[number];
export const maxPlanAgents = 10;

const agentTaskSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1-64 letters, digits, "_" or "-"'),
  description: z.string().min(1).max(4000),
  dependencies: z.array(z.string()).max(maxPlanAgents).default([]),
  tools: z.array(z.string()).max(20).default([]),
  tier: z.enum(modelTiers).default('MEDIUM'),
  /** This agent's history policy, instead of the task's (see core/llm/history-compression.ts). */
  history: z
    .strictObject({
      compress_at_tokens: z.number().int().nonnegative(),
      keep_turns: z.number().int().nonnegative(),
      model: z.string().min(1).optional(),
    })
    .optional(),
});

export const planSchema = z.strictObject({
  agents: z.array(agentTaskSchema).min(1).max(maxPlanAgents),
});

export type AgentTask = z.infer<typeof agentTaskSchema>;
export type Plan = z.infer<typeof planSchema>;

export type PlanCheck = { ok: true; plan: Plan } | { ok: false; errors: string[] };

function findCycle(plan: Plan): string[] | undefined {
  const deps = new Map(plan.agents.map((a) => [a.id, a.dependencies]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, trail: string[]): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...trail.slice(trail.indexOf(id)), id];
    state.set(id, 'visiting');
    for (const dep of deps.get(id) ?? []) {
      const cycle = visit(dep, [...trail, id]);
      if (cycle) return cycle;
    }
    state.set(id, 'done');
    return undefined;
  };
  for (const agent of plan.agents) {
    const cycle = visit(agent.id, []);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Schema, unique ids, known dependencies and tools, and no cycle. Errors are meant for a model to fix. */
export function checkPlan(candidate: unknown, knownTools: readonly string[]): PlanCheck {
  if (candidate instanceof NotJson) return { ok: false, errors: [candidate.describe()] };
  const parsed = planSchema.safeParse(candidate);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join('.') || 'plan'}: ${i.message}`) };
  }
  const plan = parsed.data;
  const errors: string[] = [];
  const ids = new Set<string>();
  for (const agent of plan.agents) {
    if (ids.has(agent.id)) errors.push(`agent ${agent.id} appears twice`);
    ids.add(agent.id);
  }
  for (const agent of plan.agents) {
    for (const dep of agent.dependencies) if (!ids.has(dep)) errors.push(`agent ${agent.id} depends on unknown agent ${dep}`);
    for (const tool of agent.tools) if (!knownTools.includes(tool)) errors.push(`agent ${agent.id} uses unknown tool ${tool}`);
  }
  if (errors.length === 0) {
    const cycle = findCycle(plan);
    if (cycle) errors.push(`dependency cycle: ${cycle.join(' -> ')}`);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, plan };
}

const planExpected = 'a plan is {"agents": [...]}';

/** Parses plan JSON a person wrote, tolerating a Markdown code fence around it. */
export function parsePlanText(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1]! : text).trim();
  try {
    return JSON.parse(body);
  } catch {
    return new NotJson(body, planExpected);
  }
}

const planKeys = { agents: ['tasks', 'subtasks', 'steps', 'plan'] };
const agentKeys = {
  id: ['name', 'agent', 'agent_id'],
  description: ['task', 'goal', 'objective', 'instructions'],
  dependencies: ['depends_on', 'deps', 'requires'],
  tools: ['tool'],
  tier: ['model_tier'],
  history: [],
};

/** A model's plan with what real models do to one forgiven: see model-json.ts; every change noted. */
function lenientPlan(value: unknown, notes: string[]): unknown {
  if (Array.isArray(value)) notes.push('read a list of agents as {"agents": [...]}');
  const plan = Array.isArray(value) ? { agents: value } : value;
  if (!isRecord(plan)) return plan;
  const canonical = canonicalKeys(plan, planKeys, '', notes);
  if (!Array.isArray(canonical.agents)) return canonical;
  const agents = canonical.agents.map((agent: unknown, i) => {
    if (!isRecord(agent)) return agent;
    const fields = canonicalKeys(agent, agentKeys, `agents[${i}].`, notes);
    if (typeof fields.dependencies === 'string') fields.dependencies = fields.dependencies === '' ? [] : [fields.dependencies];
    if (typeof fields.tools === 'string') fields.tools = [fields.tools];
    return { ...fields, ...(fields.tier !== undefined ? { tier: canonicalCase(fields.tier, modelTiers, `agents[${i}].tier`, notes) } : {}) };
  });
  return { ...canonical, agents };
}

/**
 * A model's plan read as models write them (in prose, other key cases, synonyms, extra keys,
 * lower-case tiers) and then checked by the same rules as any plan. The reading says whether
 * anything had to be forgiven.
 */
export function readModelPlan(text: string, knownTools: readonly string[]): PlanCheck & { reading: Reading } {
  const notes: string[] = [];
  const check = checkPlan(lenientPlan(findJson(text, planExpected, notes), notes), knownTools);
  if (!check.ok) return { ...check, reading: { outcome: 'failed', notes: check.errors } };
  return { ...check, reading: { outcome: notes.length > 0 ? 'lenient' : 'clean', notes } };
}
