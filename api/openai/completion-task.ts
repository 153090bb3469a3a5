import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type { Principal } from '../../core/auth/api-keys';
import type { EventFeed } from '../../core/events/event-feed';
import type { OpenAiModelCatalog } from '../../core/openai/model-catalog';
import { AgentInputError, type AgentCatalog, type AgentDefinition } from '../../core/agents/agent-catalog';
import { openNamedSession } from '../../core/sessions/named-sessions';
import { addMessages, listHistory } from '../../core/sessions/history';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';
import { isPathSafeId } from '../tasks/path-safe-ids';
import type { Authenticator } from '../tasks/auth';
import type { RunningTasks } from '../tasks/running-tasks';
import { submittedTaskInput, type TaskStarter } from '../tasks/task-start';
import { idempotencyKeyOf } from '../http/credentials';
import type { SessionDefaults } from '../tasks/session-defaults';
import { taskWorkflowIdOf } from '../../core/tasks/run/task-ref';
import type { CompletionRequest } from './completion-request';
import { asksForResearch } from '../tasks/research-request';
import { OpenAiRequestError } from './openai-errors';

// A completion is a Weft task: the caller's last user message is its query, the messages before it
// are the session's history, system messages the agent's instructions. The task is durable, so a
// client that drops the connection leaves a task that finishes and can be read afterwards.

export interface OpenAiDeps {
  auth: Authenticator;
  pool: Pool;
  /** Cancels a response's task; gives a task its client's tool results. */
  running: RunningTasks;
  events: EventFeed;
  models: OpenAiModelCatalog;
  sessions: SessionDefaults;
  tasks: TaskStarter;
  /** The named agents shannon_options.agent may name. */
  agents: AgentCatalog;
}

export interface PreparedCompletion {
  taskId: string;
  workflowId: string;
  sessionId?: string;
  /** The answer is the task's events after this one (a task going on with a client's tool results); all of them when absent. */
  after?: number;
  /** Starts the task (an Idempotency-Key's retry finds the one already started). */
  start(): Promise<void>;
}

/**
 * The session the completion runs in: the one the caller names (X-Session-ID), which keeps the
 * conversation itself; otherwise, when the caller sends earlier turns, one named for exactly that
 * conversation, so a retried request lands in the same session. A single message needs none.
 */
function sessionIdFor(request: CompletionRequest, principal: Principal, headers: Record<string, string | string[] | undefined>): string | undefined {
  const named = headers['x-session-id'];
  if (typeof named === 'string' && named !== '') {
    if (!isPathSafeId(named))
      throw new OpenAiRequestError('X-Session-ID must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit.', null);
    return named;
  }
  if (request.history.length === 0) return undefined;
  const conversation = JSON.stringify([principal.tenantId, principal.userId, request.instructions ?? '', request.history]);
  return `openai-${createHash('sha256').update(conversation).digest('hex').slice(0, 32)}`;
}

/** Opens the session, and gives it the caller's earlier turns when it has no history yet. */
export async function openConversation(deps: OpenAiDeps, principal: Principal, sessionId: string, history: CompletionRequest['history']): Promise<void> {
  const now = new Date();
  await openNamedSession(deps.pool, { sessionId, tenantId: principal.tenantId, userId: principal.userId, ...deps.sessions }, now);
  if (history.length === 0 || (await listHistory(deps.pool, principal.tenantId, sessionId)).length > 0) return;
  const turns = history.map((turn, i) => ({ id: `openai-${i}`, ...turn, tokensUsed: 0, metadata: {}, createdAt: now }));
  await addMessages(deps.pool, principal.tenantId, sessionId, turns, now);
}

/** How the task is shaped beyond its model: Shannon's options may ask for a plan of agents, or one named agent. */
export interface TaskShape {
  decompose: boolean;
  agent?: AgentDefinition;
}

/** The shape the request's model names, as Shannon's options change it. */
export function taskShapeOf(deps: Pick<OpenAiDeps, 'agents'>, request: Pick<CompletionRequest, 'model' | 'shannonOptions'>): TaskShape {
  const options = request.shannonOptions;
  const research = options ? asksForResearch(options.context, options.context.research_strategy as string | undefined) : false;
  if (!options?.agent) return { decompose: research || request.model.mode === 'auto' };
  const agent = deps.agents.find(options.agent.id);
  if (!agent)
    throw new OpenAiRequestError(`shannon_options.agent: no agent is named ${options.agent.id}; GET /api/v1/agents lists them.`, 'shannon_options.agent');
  if (research) throw new OpenAiRequestError('shannon_options.agent runs one agent: it cannot research with a plan of agents too.', 'shannon_options.agent');
  return { decompose: false, agent };
}

/** The task's query: the user's, after a named agent's prompt filled from its input. */
export function queryOf(deps: Pick<OpenAiDeps, 'agents'>, request: Pick<CompletionRequest, 'query' | 'shannonOptions'>, shape: TaskShape): string {
  if (!shape.agent) return request.query;
  try {
    return `${deps.agents.promptFor(shape.agent, request.shannonOptions!.agent!.input)}\n\n${request.query}`;
  } catch (err) {
    if (err instanceof AgentInputError) throw new OpenAiRequestError(`shannon_options.agent_input: ${err.message}`, 'shannon_options.agent_input');
    throw err;
  }
}

/**
 * The task a completion or response runs: the shape its model names, with the caller's
 * instructions; a tier or a named agent from Shannon's options takes precedence over the model's.
 */
export function taskInputOf(
  base: TaskWorkflowInput,
  request: Pick<CompletionRequest, 'model' | 'instructions' | 'clientTools' | 'shannonOptions'>,
  shape: TaskShape,
): TaskWorkflowInput {
  const { model } = request;
  const { agent } = shape;
  const tools = agent?.tools ?? model.tools;
  const modelTier = base.settings.modelTier ?? model.model_tier;
  return {
    ...base,
    autoDecompose: shape.decompose,
    ...(tools ? { allowedTools: tools } : {}),
    ...(request.instructions ? { instructions: request.instructions } : {}),
    ...(request.clientTools ? { clientTools: request.clientTools } : {}),
    settings: {
      ...base.settings,
      ...(modelTier ? { modelTier } : {}),
      ...(agent ? { maxAgents: 1, ...(agent.max_iterations ? { maxIterations: agent.max_iterations } : {}) } : {}),
    },
  };
}

/** Client tools go to a single agent, under names no Weft tool of the tenant has. */
export function checkClientTools(deps: OpenAiDeps, principal: Principal, request: Pick<CompletionRequest, 'clientTools' | 'model'>, shape: TaskShape): void {
  if (!request.clientTools) return;
  if (shape.decompose)
    throw new OpenAiRequestError(
      `tools are offered to single-agent models only; ${request.model.mode === 'auto' ? `${request.model.id} plans` : 'research plans'} with several agents.`,
      'tools',
    );
  const ours = new Set(deps.tasks.limits.toolNamesFor(principal.tenantId));
  const taken = request.clientTools.find((tool) => ours.has(tool.name));
  if (taken) throw new OpenAiRequestError(`tools: Weft has a tool named ${taken.name} already; name yours otherwise.`, 'tools');
}

/**
 * The completion's task, named and ready to start: its ids are known before it starts, so the
 * answer can be followed from its first word.
 */
export async function prepareCompletionTask(
  deps: OpenAiDeps,
  call: { principal: Principal; headers: Record<string, string | string[] | undefined> },
  request: CompletionRequest,
): Promise<PreparedCompletion> {
  const { principal } = call;
  const shape = taskShapeOf(deps, request);
  checkClientTools(deps, principal, request, shape);
  const query = queryOf(deps, request, shape);
  const sessionId = sessionIdFor(request, principal, call.headers);
  if (sessionId) await openConversation(deps, principal, sessionId, request.history);
  const context = request.shannonOptions?.context;
  const routed = submittedTaskInput(
    principal,
    idempotencyKeyOf(call.headers),
    { query, ...(sessionId ? { sessionId } : {}), ...(context ? { context } : {}) },
    deps.tasks.limits,
  );
  const input = taskInputOf(routed, request, shape);
  const fingerprint = `openai:${request.model.id}:${createHash('sha256')
    .update(JSON.stringify([request.instructions ?? '', request.history, request.query, request.clientTools ?? [], request.shannonOptions ?? {}]))
    .digest('hex')}`;
  return {
    taskId: input.taskId,
    workflowId: taskWorkflowIdOf(input.taskId),
    ...(sessionId ? { sessionId } : {}),
    start: async () => void (await deps.tasks.start(input, principal, fingerprint)),
  };
}
