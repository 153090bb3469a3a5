import { modelTiers } from '../../core/orchestration/plan';
import { researchStrategies } from '../tasks/research-request';
import { invalid } from './openai-errors';

// Shannon's extension of a chat completion, `shannon_options`, read as Shannon's gateway reads it
// (translator.go: each option onto the task's context) and mapped onto what a Weft submission
// understands: the context is SubmitTask's context, an agent is one of agents/*.yaml run as
// POST /api/v1/agents/{id} runs it, a research strategy asks for a plan of agents, a model tier
// chooses the tier. An option Weft cannot honour is refused by name.

export interface ShannonOptions {
  /** SubmitTask's context (template, skill, cost_limit_usd, model_tier, force_research, ...), checked as a submission's is. */
  context: Record<string, unknown>;
  /** The named agent the task runs as, and the input its prompt is filled from. */
  agent?: { id: string; input: Record<string, unknown> };
}

const options = ['context', 'agent', 'agent_input', 'role', 'research_strategy', 'model_tier'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isGiven = (value: unknown) => value !== undefined && value !== null && value !== '';

/**
 * The request's shannon_options, or none. As in Shannon's gateway, each named option is a key of
 * the context and takes precedence over the context's own; so the context's agent, agent_input and
 * role are read here too, where `param` names the field the caller wrote.
 */
export function shannonOptionsOf(request: Record<string, unknown>): { shannonOptions?: ShannonOptions } {
  const given = request.shannon_options;
  if (given === undefined || given === null) return {};
  if (!isObject(given)) throw invalid("Invalid type for 'shannon_options': expected an object.", 'shannon_options');
  const unknown = Object.keys(given).find((name) => !options.includes(name));
  if (unknown) throw invalid(`Unrecognized option shannon_options.${unknown}.`, `shannon_options.${unknown}`);
  if (isGiven(given.context) && !isObject(given.context))
    throw invalid("Invalid type for 'shannon_options.context': expected an object.", 'shannon_options.context');
  const context: Record<string, unknown> = { ...(given.context as Record<string, unknown> | undefined) };
  const paramOf: Record<string, string> = {};
  for (const name of options.slice(1)) {
    if (isGiven(given[name])) {
      context[name] = given[name];
      paramOf[name] = `shannon_options.${name}`;
    } else paramOf[name] = `shannon_options.context.${name}`;
  }
  const { agent, agent_input: input, role, research_strategy: strategy, ...rest } = context;
  if (isGiven(role))
    throw invalid(
      `${paramOf.role} is not supported by Weft: Weft has no workflow roles; name an agent (shannon_options.agent, see GET /api/v1/agents) or a skill (shannon_options.context.skill) instead.`,
      paramOf.role!,
    );
  if (isGiven(strategy)) {
    if (typeof strategy !== 'string' || !(researchStrategies as readonly string[]).includes(strategy))
      throw invalid(`Invalid value for '${paramOf.research_strategy}': expected one of ${researchStrategies.join(', ')}.`, paramOf.research_strategy!);
    rest.research_strategy = strategy;
  }
  const tier = rest.model_tier;
  if (tier !== undefined && (typeof tier !== 'string' || !(modelTiers as readonly string[]).includes(tier.toUpperCase())))
    throw invalid(`Invalid value for '${paramOf.model_tier}': expected small, medium or large.`, paramOf.model_tier!);
  if (isGiven(agent) && typeof agent !== 'string') throw invalid(`Invalid type for '${paramOf.agent}': expected a string.`, paramOf.agent!);
  if (isGiven(input) && !isObject(input)) throw invalid(`Invalid type for '${paramOf.agent_input}': expected an object.`, paramOf.agent_input!);
  if (isGiven(input) && !isGiven(agent))
    throw invalid(`${paramOf.agent_input} is the input of a named agent: give shannon_options.agent too.`, paramOf.agent_input!);
  return {
    shannonOptions: {
      context: rest,
      ...(typeof agent === 'string' && agent !== '' ? { agent: { id: agent, input: (input as Record<string, unknown> | undefined) ?? {} } } : {}),
    },
  };
}
