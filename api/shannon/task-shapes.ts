import { z } from 'zod';
import { findTask } from '../../core/tasks/task-index';
import { openNamedSession } from '../../core/sessions/named-sessions';
import { JsonMappingError } from '../../protos/json-mapping';
import { asksForResearch, researchStrategies } from '../tasks/research-request';
import { objectOf, type AdapterContext, type JsonObject, type RequestParts, type RouteAdapter } from './route-adapter';

// Shannon's task routes on Weft's: the body of POST /api/v1/tasks (session_id, mode, model_tier and
// research options at the top level) as a SubmitTask request, and the fields its clients read from
// GET /api/v1/tasks/{id} (query, session, model, provider, usage, timestamps) added to GetTaskStatus.

/** Shannon's fields that Weft has no counterpart for: refused, so nobody relies on them silently. */
const unsupported: Record<string, string> = {
  model_override: 'choose a model_tier instead; the model catalog (WEFT_MODEL_CATALOG) maps each tier to its models',
  provider_override: 'choose a model_tier instead; the model catalog (WEFT_MODEL_CATALOG) maps each tier to its providers',
  enable_verification: 'Weft runs no separate verification pass',
};

const shannonSubmitFields = [
  'session_id',
  'mode',
  'model_tier',
  'skill',
  'research_strategy',
  'max_iterations',
  'max_concurrent_agents',
  ...Object.keys(unsupported),
];

const modes: Record<string, boolean> = { simple: false, standard: false, complex: true, supervisor: true };

function stringField(body: JsonObject, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new JsonMappingError(`${name} must be a string`);
  return value;
}

function positiveIntegerField(body: JsonObject, name: string): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw new JsonMappingError(`${name} must be a positive integer`);
  return value;
}

/**
 * Shannon's submit body as a SubmitTask request. A session the caller names and has not created is
 * opened first, as Shannon's gateway does, so it lists, titles and keeps the task's turn.
 */
async function submitRequest(parts: RequestParts, context: AdapterContext): Promise<RequestParts> {
  const body = objectOf(parts.body);
  if (!body || (!shannonSubmitFields.some((name) => name in body) && !asksForResearch(objectOf(body.context) ?? {}, undefined))) return parts;
  for (const [name, why] of Object.entries(unsupported)) {
    if (name in body) throw new JsonMappingError(`${name} is not supported by Weft: ${why}`);
  }
  const { session_id: _s, mode: _m, model_tier: _t, skill: _k, research_strategy: _r, max_iterations: _i, max_concurrent_agents: _a, ...rest } = body;
  const metadata = { ...objectOf(rest.metadata) };
  const taskContext = { ...objectOf(rest.context) };

  const sessionId = stringField(body, 'session_id');
  if (sessionId) {
    if (metadata.session_id !== undefined && metadata.session_id !== sessionId) throw new JsonMappingError('session_id and metadata.session_id differ');
    metadata.session_id = sessionId;
  }
  const mode = stringField(body, 'mode');
  if (mode !== undefined && !(mode in modes)) throw new JsonMappingError(`mode must be one of ${Object.keys(modes).join(', ')}`);
  const strategy = stringField(body, 'research_strategy');
  if (strategy !== undefined && !(researchStrategies as readonly string[]).includes(strategy))
    throw new JsonMappingError(`research_strategy must be one of ${researchStrategies.join(', ')}`);
  const tier = stringField(body, 'model_tier');
  if (tier !== undefined) taskContext.model_tier = tier;
  const skill = stringField(body, 'skill');
  if (skill !== undefined) taskContext.skill = skill;
  if (strategy !== undefined) taskContext.research_strategy = strategy;
  const maxIterations = positiveIntegerField(body, 'max_iterations');
  if (maxIterations !== undefined) taskContext.max_iterations = maxIterations;
  const maxAgents = positiveIntegerField(body, 'max_concurrent_agents');
  if (maxAgents !== undefined) metadata.max_agents = maxAgents;

  const decompose = mode !== undefined ? modes[mode] : (rest.auto_decompose ?? (asksForResearch(taskContext, strategy) || undefined));
  if (sessionId) {
    const principal = await context.auth.identify(context.authorization);
    await openNamedSession(
      context.pool,
      { sessionId, tenantId: principal.tenantId, userId: principal.userId, ttlSeconds: context.sessions.ttlSeconds, maxHistory: context.sessions.maxHistory },
      new Date(),
    );
  }
  return {
    ...parts,
    body: {
      ...rest,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(Object.keys(taskContext).length > 0 ? { context: taskContext } : {}),
      ...(decompose !== undefined ? { auto_decompose: decompose } : {}),
    },
  };
}

/** Shannon's submit fields beside SubmitTask's. */
const submitBody = z.object({
  session_id: z.string().optional().describe('opened when the caller has not created it'),
  mode: z.enum(Object.keys(modes) as [string, ...string[]]).optional(),
  model_tier: z.string().optional(),
  skill: z.string().optional().describe('a skill of GET /api/v1/skills, name or name@version'),
  research_strategy: z.enum(researchStrategies as unknown as [string, ...string[]]).optional(),
  max_iterations: z.int().min(1).optional(),
  max_concurrent_agents: z.int().min(1).optional(),
});

export const submitTaskShape: RouteAdapter = {
  schemas: { body: submitBody },
  request: submitRequest,
  // Shannon's clients read the workflow id from this header first.
  respond: (response) => ({ body: response, headers: { 'x-workflow-id': String(response.workflow_id ?? '') } }),
};

/** POST /api/v1/tasks/stream: the same submit, answered 201 with where its events stream. */
export const submitAndStreamShape: RouteAdapter = {
  schemas: { body: submitBody, answer: z.object({ stream_url: z.string().describe("where the task's events stream") }), answerStatus: 201 },
  request: submitRequest,
  respond: (response) => ({
    status: 201,
    body: { ...response, stream_url: `/api/v1/stream/sse?workflow_id=${encodeURIComponent(String(response.workflow_id ?? ''))}` },
    headers: { 'x-workflow-id': String(response.workflow_id ?? '') },
  }),
};

/** Shannon's names for what GetTaskStatus reports of a task, read from the task's row. */
export const taskStatusShape: RouteAdapter = {
  schemas: {
    answer: z.object({
      workflow_id: z.string(),
      query: z.string().optional(),
      session_id: z.string().optional(),
      mode: z.string().optional(),
      model_used: z.string().optional(),
      provider: z.string().optional(),
      usage: z
        .object({
          total_tokens: z.number(),
          prompt_tokens: z.number(),
          completion_tokens: z.number(),
          input_tokens: z.number(),
          output_tokens: z.number(),
          cost_usd: z.number(),
          estimated_cost: z.number(),
        })
        .optional(),
      error: z.string().optional(),
      created_at: z.string().optional(),
      updated_at: z.string().optional(),
      completed_at: z.string().optional(),
    }),
  },
  async respond(response, context) {
    // The gRPC call found the task for this caller, so its canonical id is the caller's own.
    const task = await findTask(context.pool, String(response.task_id));
    if (!task) return { body: { ...response, workflow_id: response.task_id } };
    const usage = task.usage;
    const provider = usage.model ? context.providerOf(usage.model) : undefined;
    return {
      body: {
        ...response,
        workflow_id: task.workflowId,
        query: task.query,
        session_id: task.sessionId,
        mode: task.mode.toLowerCase(),
        ...(usage.model ? { model_used: usage.model } : {}),
        ...(provider ? { provider } : {}),
        usage: {
          total_tokens: usage.totalTokens,
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          input_tokens: usage.promptTokens,
          output_tokens: usage.completionTokens,
          cost_usd: usage.costUsd,
          estimated_cost: usage.costUsd,
        },
        ...(task.errorMessage ? { error: task.errorMessage } : {}),
        created_at: task.createdAt.toISOString(),
        updated_at: (task.completedAt ?? new Date()).toISOString(),
        ...(task.completedAt ? { completed_at: task.completedAt.toISOString() } : {}),
      },
    };
  },
};

const shannonStatuses = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT'];

/** Shannon's `status` filter (RUNNING, or TASK_STATUS_RUNNING) as ListTasks' filter_status. */
export const listTasksShape: RouteAdapter = {
  schemas: {
    query: z.object({
      status: z
        .string()
        .optional()
        .describe(`Shannon's filter: one of ${shannonStatuses.join(', ')}`),
    }),
  },
  request(parts) {
    const { status, ...query } = parts.query;
    if (status === undefined) return parts;
    const name = String(status)
      .toUpperCase()
      .replace(/^TASK_STATUS_/, '');
    if (!shannonStatuses.includes(name)) throw new JsonMappingError(`status must be one of ${shannonStatuses.join(', ')}`);
    return { ...parts, query: { ...query, filter_status: `TASK_STATUS_${name}` } };
  },
};
