// How a caller asks for research, in Shannon's words: a research_strategy, or context.force_research
// (or force_swarm). Shannon answers with its research or swarm workflows; Weft runs the task
// decomposed into a plan of agents.

export const researchStrategies = ['quick', 'standard', 'deep', 'academic'] as const;

const truthy = (value: unknown) => value === true || value === 'true';

/** Whether the caller asked for research (a strategy given, or research forced in the context). */
export const asksForResearch = (context: Record<string, unknown>, strategy: string | undefined) =>
  strategy !== undefined || truthy(context.force_research) || truthy(context.force_swarm);
