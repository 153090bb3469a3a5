import type { ScriptedModelServer } from '../model-server/scripted-model-server';

// The complexity analysis a decomposed task starts with, scripted for one query and seen asked.

const classifies = (text: string, query: string) => text.includes('Classify the task below') && text.includes(query);

/** The analysis of `query` finds one agent enough. */
export function routeToOneAgent(model: ScriptedModelServer, query: string): void {
  model.on((text) => classifies(text, query), {
    content: JSON.stringify({
      recommended_mode: 'STANDARD',
      complexity_score: 0.2,
      required_capabilities: [],
      estimated_agents: 1,
      estimated_tokens: 10,
      estimated_cost_usd: 0,
      reasoning: 'one agent',
    }),
  });
}

/** Whether the model was asked to analyse `query`: its task was planned, not run by one agent at once. */
export const wasAnalysed = (model: ScriptedModelServer, query: string) => model.requests.some((r) => classifies(JSON.stringify(r.body.messages), query));
