import { z } from 'zod';
import { canonicalCase, canonicalKeys, findJson, isRecord, NotJson, type Reading } from './model-json';
import { isModelFailure } from '../llm/provider-errors';

// Complexity analysis picks the execution mode (seed 000's AnalyzeComplexity). A small model gives a
// schema-validated verdict; when no model answers, or it answers badly, this documented heuristic
// decides:
// - a query that is only arithmetic is SIMPLE and goes straight to the calculator;
// - otherwise a score in [0, 1] grows with length, with the number of distinct steps it asks for
//   ("and", "then", commas, numbered items) and with analysis verbs; >= 0.6 is COMPLEX.

export const executionModes = ['SIMPLE', 'STANDARD', 'COMPLEX'] as const;
export type ExecutionMode = (typeof executionModes)[number];

export const complexityVerdictSchema = z.strictObject({
  recommended_mode: z.enum(executionModes),
  complexity_score: z.number().min(0).max(1),
  required_capabilities: z.array(z.string()).max(20),
  estimated_agents: z.number().int().min(1).max(10),
  estimated_tokens: z.number().int().nonnegative(),
  estimated_cost_usd: z.number().nonnegative(),
  reasoning: z.string(),
});
export type ComplexityVerdict = z.infer<typeof complexityVerdictSchema> & {
  /** Set for SIMPLE: the tool call that answers the query directly. */
  direct_tool?: { name: string; arguments: Record<string, unknown> };
  source: 'model' | 'heuristic';
  /** How the model's verdict was read: clean, leniently, or not at all (then the heuristic decided). */
  reading?: Reading;
};

const arithmetic = /^[\d\s.+\-*/^%()]+$/;
const analysisVerbs = /\b(analy[sz]e|compare|research|investigate|plan|design|evaluate|summari[sz]e|visuali[sz]e|create|build)\b/gi;

export function heuristicComplexity(query: string, tokensPerAgent = 1500, costPer1kTokens = 0): ComplexityVerdict {
  const trimmed = query.trim();
  if (arithmetic.test(trimmed) && /\d/.test(trimmed)) {
    return {
      recommended_mode: 'SIMPLE',
      complexity_score: 0.05,
      required_capabilities: ['calculation'],
      estimated_agents: 1,
      estimated_tokens: 0,
      estimated_cost_usd: 0,
      reasoning: 'the query is an arithmetic expression: the calculator answers it directly',
      direct_tool: { name: 'calculator', arguments: { expression: trimmed } },
      source: 'heuristic',
    };
  }
  const steps = (trimmed.match(/\b(and|then)\b|,|;|\n\s*\d+[.)]/gi) ?? []).length;
  const verbs = new Set((trimmed.match(analysisVerbs) ?? []).map((v) => v.toLowerCase()));
  const score = Math.min(1, Math.min(trimmed.length / 800, 0.3) + Math.min(steps * 0.12, 0.4) + Math.min(verbs.size * 0.15, 0.45));
  const complex = score >= 0.6;
  const agents = complex ? Math.min(5, Math.max(2, verbs.size)) : 1;
  const tokens = agents * tokensPerAgent;
  return {
    recommended_mode: complex ? 'COMPLEX' : 'STANDARD',
    complexity_score: Number(score.toFixed(2)),
    required_capabilities: [...verbs],
    estimated_agents: agents,
    estimated_tokens: tokens,
    estimated_cost_usd: Number(((tokens / 1000) * costPer1kTokens).toFixed(6)),
    reasoning: complex
      ? `${steps} sub-steps and ${verbs.size} distinct analysis verbs suggest several cooperating agents`
      : 'a single agent can answer this directly',
    source: 'heuristic',
  };
}

export const complexityPrompt = (query: string, tools: readonly string[]) =>
  [
    'Classify the task below for an agent orchestrator. Answer with one JSON object only, with exactly these fields:',
    '{"recommended_mode": "SIMPLE" | "STANDARD" | "COMPLEX", "complexity_score": 0..1, "required_capabilities": [string],',
    ' "estimated_agents": int, "estimated_tokens": int, "estimated_cost_usd": number, "reasoning": string}',
    'SIMPLE: one tool call answers it. STANDARD: one agent. COMPLEX: several agents with dependencies.',
    `Available tools: ${tools.join(', ') || 'none'}.`,
    `Task: ${query}`,
  ].join('\n');

const verdictKeys = {
  recommended_mode: ['mode', 'execution_mode'],
  complexity_score: ['score', 'complexity'],
  required_capabilities: ['capabilities'],
  estimated_agents: ['agents', 'agent_count'],
  estimated_tokens: ['tokens'],
  estimated_cost_usd: ['cost', 'cost_usd', 'estimated_cost'],
  reasoning: ['reason', 'rationale', 'explanation'],
};

/** A model's verdict read as models write them (see model-json.ts), then schema-validated. */
export function readModelVerdict(text: string): { verdict?: z.infer<typeof complexityVerdictSchema>; reading: Reading } {
  const notes: string[] = [];
  const found = findJson(text, 'a verdict is {"recommended_mode": ...}', notes);
  if (found instanceof NotJson) return { reading: { outcome: 'failed', notes: [found.describe()] } };
  const fields = isRecord(found) ? canonicalKeys(found, verdictKeys, '', notes) : found;
  if (isRecord(fields)) fields.recommended_mode = canonicalCase(fields.recommended_mode, executionModes, 'recommended_mode', notes);
  const parsed = complexityVerdictSchema.safeParse(fields);
  if (!parsed.success) return { reading: { outcome: 'failed', notes: parsed.error.issues.map((i) => `${i.path.join('.') || 'verdict'}: ${i.message}`) } };
  return { verdict: parsed.data, reading: { outcome: notes.length > 0 ? 'lenient' : 'clean', notes } };
}

/**
 * The documented decision: a SIMPLE heuristic verdict stands; otherwise a small model's verdict when
 * it gives one, else the heuristic's. A model that is refused, down or answers nonsense leaves the
 * heuristic in charge; any other error is the caller's.
 */
export async function decideComplexity(
  heuristic: ComplexityVerdict,
  query: string,
  tools: readonly string[],
  ask: (prompt: string) => Promise<string>,
): Promise<ComplexityVerdict> {
  if (heuristic.recommended_mode === 'SIMPLE') return heuristic;
  const reply = await ask(complexityPrompt(query, tools)).catch((err: unknown) => {
    if (isModelFailure(err)) return undefined;
    throw err;
  });
  if (reply === undefined) return heuristic;
  const { verdict, reading } = readModelVerdict(reply);
  if (verdict?.recommended_mode === 'SIMPLE')
    return { ...heuristic, reading: { outcome: 'failed', notes: ['the model said SIMPLE, which needs a direct tool call only the heuristic gives'] } };
  return verdict ? { ...verdict, source: 'model', reading } : { ...heuristic, reading };
}
