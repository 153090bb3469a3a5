import type { ServiceName } from '../../protos/clients';
import type { RouteAdapter } from '../shannon/route-adapter';
import { getSessionShape, listSessionsShape, updateSessionShape } from '../shannon/session-shapes';
import { listTasksShape, submitAndStreamShape, submitTaskShape, taskStatusShape } from '../shannon/task-shapes';

// The REST surface: each route is one gRPC call on the front port. Path parameters and query strings
// are fields of the gRPC request, named as in the .proto files; a body is the rest of the request.

export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** With `:field` path parameters. */
  path: string;
  service: Extract<ServiceName, 'orchestrator' | 'session'>;
  rpc: string;
  /** The document's name of the route where another route calls the same RPC; the RPC's name otherwise. */
  operationId?: string;
  summary: string;
  /** Request fields that may come as query parameters. */
  query?: string[];
  /** Whether the request body carries the remaining fields. */
  body?: boolean;
  /** Where Shannon's gateway has the same path: its request shape accepted, its fields added. */
  shannon?: RouteAdapter;
}

export const restRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/tasks',
    service: 'orchestrator',
    rpc: 'SubmitTask',
    summary: "Submit a task (an Idempotency-Key header makes retries safe); Shannon's body (session_id, mode, model_tier, research options) too",
    body: true,
    shannon: submitTaskShape,
  },
  {
    method: 'POST',
    path: '/api/v1/tasks/stream',
    service: 'orchestrator',
    rpc: 'SubmitTask',
    operationId: 'SubmitTaskForStream',
    summary: 'Submit a task as POST /api/v1/tasks does; 201 with stream_url, where its events stream',
    body: true,
    shannon: submitAndStreamShape,
  },
  {
    method: 'GET',
    path: '/api/v1/tasks',
    service: 'orchestrator',
    rpc: 'ListTasks',
    summary: "List tasks (Shannon's status filter too)",
    query: ['user_id', 'session_id', 'limit', 'offset', 'filter_status'],
    shannon: listTasksShape,
  },
  {
    method: 'GET',
    path: '/api/v1/tasks/:task_id',
    service: 'orchestrator',
    rpc: 'GetTaskStatus',
    summary: "A task's status, result and metrics, with Shannon's query, session_id, mode, model_used, provider, usage and timestamps",
    query: ['include_details'],
    shannon: taskStatusShape,
  },
  { method: 'POST', path: '/api/v1/tasks/:task_id/cancel', service: 'orchestrator', rpc: 'CancelTask', summary: 'Cancel a task', body: true },
  {
    method: 'GET',
    path: '/api/v1/approvals',
    service: 'orchestrator',
    rpc: 'GetPendingApprovals',
    summary: 'Pending approvals',
    query: ['user_id', 'session_id'],
  },
  {
    method: 'POST',
    path: '/api/v1/approvals/:approval_id/decision',
    service: 'orchestrator',
    rpc: 'ApproveTask',
    summary: 'Approve or reject (approver role); the id\'s "/" may be sent as is or as %2F',
    body: true,
  },
  {
    method: 'POST',
    path: '/api/v1/approvals/decision',
    service: 'orchestrator',
    rpc: 'ApproveTask',
    operationId: 'ApproveTaskByBody',
    summary: "Approve or reject with approval_id in the body, as Shannon's clients send it",
    body: true,
  },
  { method: 'GET', path: '/api/v1/templates', service: 'orchestrator', rpc: 'ListTemplates', summary: 'Task templates' },
  { method: 'POST', path: '/api/v1/sessions', service: 'session', rpc: 'CreateSession', summary: 'Create a session', body: true },
  {
    method: 'GET',
    path: '/api/v1/sessions',
    service: 'session',
    rpc: 'ListSessions',
    summary: "List sessions, with Shannon's title, task counts and spend",
    query: ['user_id', 'active_only', 'limit', 'offset'],
    shannon: listSessionsShape,
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id',
    service: 'session',
    rpc: 'GetSession',
    summary: "A session, with Shannon's flat fields (session_id, title, task_count, tokens_used, ...)",
    query: ['include_history'],
    shannon: getSessionShape,
  },
  {
    method: 'PATCH',
    path: '/api/v1/sessions/:session_id',
    service: 'session',
    rpc: 'UpdateSession',
    summary: "Update context, extend the TTL, or set Shannon's title",
    body: true,
    shannon: updateSessionShape,
  },
  { method: 'DELETE', path: '/api/v1/sessions/:session_id', service: 'session', rpc: 'DeleteSession', summary: 'Delete a session (ends its work)' },
  { method: 'POST', path: '/api/v1/sessions/:session_id/messages', service: 'session', rpc: 'AddMessage', summary: 'Add a message to the history', body: true },
  {
    method: 'DELETE',
    path: '/api/v1/sessions/:session_id/history',
    service: 'session',
    rpc: 'ClearHistory',
    summary: 'Clear the history',
    query: ['keep_context'],
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id/context',
    service: 'orchestrator',
    rpc: 'GetSessionContext',
    summary: 'Context, recent tasks and spend',
  },
];

export interface StreamRoute {
  path: string;
  /** Request fields that may come as query parameters. */
  query: readonly string[];
  /** Shannon's stream: `seq` as a number, and a closing `done` event once the task's events end. */
  shannon?: true;
}

/** Server-sent events of a task: StreamTaskExecution, resumable with Last-Event-ID. */
export const streamRoute: StreamRoute = {
  path: '/api/v1/tasks/:workflow_id/stream',
  query: ['types', 'last_event_id', 'last_stream_id'],
};

/** The same stream where Shannon's clients look for it, the workflow id in the query. */
export const shannonStreamRoute: StreamRoute = {
  path: '/api/v1/stream/sse',
  query: ['workflow_id', ...streamRoute.query],
  shannon: true,
};

/** The same events over a WebSocket, one JSON message each (Shannon's /api/v1/stream/ws). */
export const shannonWebSocketRoute: StreamRoute = { ...shannonStreamRoute, path: '/api/v1/stream/ws' };

export const fullServiceNames = {
  orchestrator: 'shannon.orchestrator.OrchestratorService',
  session: 'shannon.session.SessionService',
  streaming: 'shannon.orchestrator.StreamingService',
} as const;

const approvalDecisionPath = /^(\/api\/v1\/approvals\/)(.+)(\/decision(?:\?.*)?)$/;

/**
 * Approval ids hold a "/" (`<workflow>/plan`). A client that puts one in the decision route unescaped
 * reaches the route as if it had sent %2F, instead of a 404.
 */
export function withSlashedIdsEscaped(url: string): string {
  const match = approvalDecisionPath.exec(url);
  if (!match || !match[2]!.includes('/')) return url;
  return `${match[1]}${match[2]!.replace(/\//g, '%2F')}${match[3]}`;
}
