import { agentAnswer, agentRunAnswer, agentRunBody, agentsAnswer } from './shannon-schemas';
import type { AgentDefinition } from '../../core/agents/agent-catalog';
import { notFound } from '../tasks/task-errors';
import { badRequest, type ShannonRoute } from './shannon-route';
import { bodyFields, routeTaskInput } from './route-tasks';

// Shannon's named agents (GET /api/v1/agents, GET and POST /api/v1/agents/{id}): definitions from
// agents/*.yaml; running one starts a durable single-agent task with only the agent's tools and
// answers at once with the task's handle (202), as Shannon's gateway does.

function agentJson(agent: AgentDefinition) {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    category: agent.category,
    tool: agent.tools[0] ?? '',
    tools: agent.tools,
    input_schema: agent.input_schema,
    cost_per_call: agent.cost_per_call,
  };
}

export const agentRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/agents',
    answer: agentsAnswer,
    summary: 'The named agents a task can be run as (agents/*.yaml)',
    tag: 'agents',
    handle: async (_call, deps) => ({ body: { agents: deps.agents.list().map(agentJson) } }),
  },
  {
    method: 'GET',
    path: '/api/v1/agents/:agent_id',
    answer: agentAnswer,
    summary: 'One named agent: what it does, its tools and its input schema',
    tag: 'agents',
    async handle({ params }, deps) {
      const agent = deps.agents.find(params.agent_id!);
      if (!agent) throw notFound(`agent ${params.agent_id} not found`);
      return { body: agentJson(agent) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/agents/:agent_id',
    body: agentRunBody,
    answer: agentRunAnswer,
    answerStatus: 202,
    summary: 'Runs the agent on {"input": {...}, "session_id": "..."} as a durable task; 202 with its task and workflow ids',
    tag: 'agents',
    async handle(call, deps) {
      const { principal, params } = call;
      const agent = deps.agents.find(params.agent_id!);
      if (!agent) throw notFound(`agent ${params.agent_id} not found`);
      const { input = {}, session_id: sessionId, stream } = bodyFields(call.body, ['input', 'stream']);
      if (stream !== undefined && typeof stream !== 'boolean') throw badRequest('stream must be true or false');
      const query = deps.agents.promptFor(agent, input);
      const task = routeTaskInput(call, deps, { query, ...(sessionId ? { sessionId } : {}) });
      const taskId = task.taskId;
      const { workflowId } = await deps.tasks.start(
        {
          ...task,
          allowedTools: agent.tools,
          settings: { ...task.settings, maxAgents: 1, ...(agent.max_iterations ? { maxIterations: agent.max_iterations } : {}) },
        },
        principal,
        `agent:${agent.id}:${query}`,
      );
      return {
        status: 202,
        headers: { 'x-workflow-id': workflowId, ...(sessionId ? { 'x-session-id': sessionId } : {}) },
        body: {
          task_id: taskId,
          workflow_id: workflowId,
          agent_id: agent.id,
          status: 'QUEUED',
          created_at: new Date().toISOString(),
          ...(stream ? { stream_url: `/api/v1/stream/sse?workflow_id=${workflowId}` } : {}),
        },
      };
    },
  },
];
