import { toolAnswer, toolExecutionAnswer, toolExecutionBody, toolsAnswer } from './shannon-schemas';
import { listTaskEvents } from '../../core/events/event-log';
import { EventType } from '../../core/events/event-types';
import type { ToolMetadata } from '../../core/tools/tool';
import { hasRole } from '../tasks/auth';
import { notFound, permissionDenied } from '../tasks/task-errors';
import { awaitAgentResult } from '../tasks/task-result';
import { objectOf } from './route-adapter';
import { badRequest, type ShannonRoute } from './shannon-route';
import { bodyFields, routeTaskInput } from './route-tasks';

// Shannon's tool API: list, describe, and execute a tool directly. An execution is a task of its
// own (SIMPLE, one tool call): the worker runs it as it runs an agent's call, under the same policy,
// rate limits, breakers and record, and it is listed and evented like any task. A dangerous tool
// runs directly only for an admin; anyone else's agents ask for approval first.

function toolJson(tool: ToolMetadata) {
  return {
    name: tool.name,
    description: tool.description,
    category: tool.category,
    version: tool.version,
    parameters: tool.parameters,
    timeout_seconds: tool.timeoutMs / 1000,
    cost_per_use: tool.costPerUse,
    dangerous: tool.dangerous,
    requires_auth: tool.requiresAuth,
    idempotency: tool.idempotency,
  };
}

/** How much longer than the tool's own timeout the route waits: the worker's queue and the task's records. */
const executionMarginSeconds = 30;

export const directToolRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/tools',
    answer: toolsAnswer,
    summary: "The tools the caller's agents may use (category: only those of one category)",
    tag: 'tools',
    query: ['category'],
    async handle({ principal, query }, deps) {
      const category = typeof query.category === 'string' && query.category ? query.category : undefined;
      return {
        body: {
          tools: deps.tools
            .list(principal.tenantId)
            .filter((tool) => !category || tool.category === category)
            .map(toolJson),
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/tools/:name',
    answer: toolAnswer,
    summary: "One tool: its description and parameters' JSON schema",
    tag: 'tools',
    async handle({ principal, params }, deps) {
      const tool = deps.tools.get(params.name!, principal.tenantId);
      if (!tool) throw notFound(`tool ${params.name} not found`);
      return { body: toolJson(tool) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/tools/:name/execute',
    body: toolExecutionBody,
    answer: toolExecutionAnswer,
    summary: 'Runs one tool call as a task of its own (policy, limits and record as an agent\'s call); {"arguments": {...}, "session_id": "..."}',
    tag: 'tools',
    async handle(call, deps) {
      const { principal, params } = call;
      const tool = deps.tools.get(params.name!, principal.tenantId);
      if (!tool) throw notFound(`tool ${params.name} not found`);
      const { arguments: given = {}, session_id: sessionId } = bodyFields(call.body, ['arguments']);
      const args = objectOf(given);
      if (!args) throw badRequest('arguments must be a JSON object');
      if (tool.dangerous && !hasRole(principal, 'admin')) {
        throw permissionDenied(`${tool.name} is a dangerous tool: only an admin runs it directly; an agent's call to it waits for approval`);
      }
      const input = routeTaskInput(call, deps, { query: `tool ${tool.name}: ${JSON.stringify(args)}`.slice(0, 4096), ...(sessionId ? { sessionId } : {}) });
      const taskId = input.taskId;
      const started = Date.now();
      const { workflowId } = await deps.tasks.start(
        { ...input, directTool: { name: tool.name, arguments: args } },
        principal,
        `tool:${tool.name}:${JSON.stringify(args)}`,
      );
      const { result } = await awaitAgentResult(deps.temporal, workflowId, tool.timeoutMs / 1000 + executionMarginSeconds, new AbortController().signal);
      const observed = (await listTaskEvents(deps.pool, workflowId)).find((event) => event.type === EventType.ToolObservation);
      const outcome = (observed?.payload ?? {}) as { ok?: boolean; output?: unknown; error?: { category?: string; message?: string } };
      const success = result.status === 'COMPLETED';
      if (!success && outcome.error?.category === 'validation') throw badRequest(`arguments: ${outcome.error.message ?? result.errorMessage}`);
      return {
        body: {
          success,
          output: success ? (outcome.output ?? result.result) : null,
          text: success ? result.result : '',
          error: success ? null : result.errorMessage,
          metadata: { task_id: taskId, workflow_id: workflowId, tool: tool.name, status: result.status },
          execution_time_ms: Date.now() - started,
          usage: { tokens: result.tokens, cost_usd: result.costUsd },
        },
      };
    },
  },
];
