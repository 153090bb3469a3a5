import { z } from 'zod';
import { roles } from '../../core/auth/api-keys';
import { overlapPolicies } from '../tasks/schedule-spec';

// The bodies Shannon's gateway routes read and answer, as /openapi.json describes them: the fields
// each handler accepts (any other is refused) and the fields it answers with.

const jsonObject = z.record(z.string(), z.unknown());
const timestamp = z.string().describe('RFC 3339');
const sessionId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
  .describe('the session the task belongs to');

export const agentRunBody = z.strictObject({
  input: jsonObject.optional().describe("the agent's input fields, filled into its prompt"),
  session_id: sessionId.optional(),
  stream: z.boolean().optional().describe("answer with stream_url, where the task's events stream"),
});

export const agentRunAnswer = z.object({
  task_id: z.string(),
  workflow_id: z.string(),
  agent_id: z.string(),
  status: z.literal('QUEUED'),
  created_at: timestamp,
  stream_url: z.string().optional(),
});

export const toolExecutionBody = z.strictObject({
  arguments: jsonObject.optional().describe("the tool's arguments, checked against its parameters"),
  session_id: sessionId.optional(),
});

export const toolExecutionAnswer = z.object({
  success: z.boolean(),
  output: z.unknown().describe("the tool's output; null when it failed"),
  text: z.string(),
  error: z.string().nullable(),
  metadata: z.object({ task_id: z.string(), workflow_id: z.string(), tool: z.string(), status: z.string() }),
  execution_time_ms: z.number(),
  usage: z.object({ tokens: z.number(), cost_usd: z.number() }),
});

export const steerBody = z.strictObject({ reason: z.string().optional() });

const controlState = {
  is_paused: z.boolean(),
  is_cancelled: z.boolean(),
  paused_at: timestamp.nullable(),
  pause_reason: z.string(),
  paused_by: z.string(),
  cancel_reason: z.string(),
  cancelled_by: z.string(),
};
export const controlStateAnswer = z.object(controlState);
export const steerAnswer = z.object({ success: z.boolean(), message: z.string(), task_id: z.string(), ...controlState });

export const taskMessageBody = z.strictObject({ message: z.string() });
export const taskMessageAnswer = z.object({ success: z.boolean(), status: z.enum(['delivered', 'duplicate']), message_id: z.string() });

export const reviewBody = z.strictObject({
  action: z.enum(['feedback', 'approve', 'reject']),
  message: z.string().optional().describe('the feedback the planner revises the plan by'),
});

export const reviewAnswer = z.object({
  status: z.enum(['approved', 'rejected', 'reviewing']),
  message: z.string().optional(),
  plan: z.object({ message: z.string(), round: z.number(), version: z.number(), intent: z.literal('feedback') }).optional(),
  last_error: z.string().optional(),
});

export const newApiKeyBody = z.strictObject({
  name: z.string().min(1).max(100),
  description: z.string().max(500).optional(),
  roles: z.array(z.enum(roles)).optional().describe("the key's roles, each one the caller holds; the caller's when absent"),
  user_id: z.string().max(128).optional().describe("another user's key (admin); the caller's when absent"),
  expires_in_days: z.int().min(1).max(3650).optional(),
});

export const newApiKeyAnswer = z.object({
  id: z.string(),
  name: z.string(),
  api_key: z.string().describe('the key, shown once'),
  key_prefix: z.string(),
  user_id: z.string(),
  roles: z.array(z.enum(roles)),
  created_at: timestamp,
  warning: z.string(),
});

export const revokedApiKeyAnswer = z.object({ success: z.boolean(), message: z.string(), id: z.string() });

const scheduleFields = {
  name: z.string().optional(),
  description: z.string().optional(),
  cron_expression: z.string().optional().describe('when the task runs (or interval)'),
  timezone: z.string().optional().describe('IANA time zone of cron_expression; UTC when absent'),
  task_query: z.string().optional(),
  task_context: jsonObject.optional(),
  max_budget_per_run_usd: z.number().optional(),
  timeout_seconds: z.number().optional(),
  interval: z.string().optional().describe('a Go duration such as 1h30m, instead of cron_expression'),
  overlap_policy: z.enum(overlapPolicies as [string, ...string[]]).optional(),
};

export const scheduleCreateBody = z.strictObject({ ...scheduleFields, paused: z.boolean().optional().describe('created paused') });
export const scheduleUpdateBody = z.strictObject(scheduleFields);
export const scheduleCreatedAnswer = z.object({ schedule_id: z.string(), message: z.string(), next_run_at: z.string() });
export const scheduleUpdatedAnswer = z.object({ success: z.boolean(), message: z.string(), next_run_at: z.string() });

export const healthAnswer = z.object({ status: z.literal('healthy'), version: z.string(), time: timestamp });
export const readinessAnswer = z.object({
  status: z.enum(['ready', 'not_ready']).describe('503 when not_ready'),
  version: z.string(),
  time: timestamp,
  checks: z.object({ postgres: z.string(), temporal: z.string() }).describe('"ok", or "unavailable: " and why'),
});
export const metricsAnswer = z.string().describe('the Prometheus text format');

/** A stored event as Shannon's clients read it. */
export const shannonEventSchema = z.object({
  workflow_id: z.string(),
  type: z.string(),
  agent_id: z.string(),
  message: z.string(),
  timestamp,
  seq: z.number(),
  stream_id: z.string().describe('<unix ms>-<seq>: resumes a stream right after the event'),
  payload: jsonObject.optional(),
});

export const taskEventsAnswer = z.object({ task_id: z.string(), events: z.array(shannonEventSchema), count: z.number() });
export const timelineAnswer = z.object({
  task_id: z.string(),
  workflow_id: z.string(),
  run_id: z.string().optional(),
  mode: z.enum(['summary', 'full']),
  events: z.array(z.object({ id: z.number(), time: timestamp, type: z.string(), summary: z.string() })),
  count: z.number(),
});

const usage = { total_tokens: z.number(), cost_usd: z.number() };
export const sessionHistoryAnswer = z.object({
  session_id: z.string(),
  tasks: z.array(
    z.object({
      task_id: z.string(),
      workflow_id: z.string(),
      query: z.string(),
      status: z.string(),
      mode: z.string(),
      result: z.string(),
      error: z.string().optional(),
      started_at: timestamp,
      completed_at: timestamp.optional(),
      ...usage,
    }),
  ),
  total: z.number(),
});
export const sessionEventsAnswer = z.object({
  session_id: z.string(),
  turns: z.array(
    z.object({
      turn: z.number(),
      task_id: z.string(),
      user_query: z.string(),
      final_output: z.string(),
      timestamp,
      events: z.array(shannonEventSchema),
      metadata: z.object({ status: z.string(), mode: z.string(), ...usage }),
    }),
  ),
  count: z.number(),
});

const folderEntry = z.object({ name: z.string(), path: z.string(), is_dir: z.boolean(), size_bytes: z.number(), modified_at: timestamp });
export const sessionFilesAnswer = z.object({ success: z.boolean(), session_id: z.string(), files: z.array(folderEntry) });
export const memoryFilesAnswer = z.object({ success: z.boolean(), files: z.array(folderEntry) });
export const fileAnswer = z.object({
  success: z.boolean(),
  path: z.string(),
  content: z.string(),
  encoding: z.enum(['utf-8', 'base64']),
  content_type: z.string(),
  size_bytes: z.number(),
});

const agent = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  tool: z.string(),
  tools: z.array(z.string()),
  input_schema: z.unknown().describe("the agent's input fields as JSON Schema"),
  cost_per_call: z.number(),
});
export const agentsAnswer = z.object({ agents: z.array(agent) });
export const agentAnswer = agent;

const skillSummary = {
  name: z.string(),
  version: z.string(),
  category: z.string(),
  description: z.string(),
  requires_tools: z.array(z.string()),
  dangerous: z.boolean(),
  enabled: z.boolean(),
};
export const skillsAnswer = z.object({ skills: z.array(z.object(skillSummary)), count: z.number() });
export const skillAnswer = z.object({
  skill: z.object({ ...skillSummary, author: z.string().optional(), requires_role: z.string().optional(), content: z.string(), metadata: jsonObject }),
});
export const skillVersionsAnswer = z.object({ name: z.string(), versions: z.array(z.object(skillSummary)) });

const tool = z.object({
  name: z.string(),
  description: z.string(),
  category: z.string(),
  version: z.string(),
  parameters: z.unknown().describe("the tool's parameters as JSON Schema"),
  timeout_seconds: z.number(),
  cost_per_use: z.number(),
  dangerous: z.boolean(),
  requires_auth: z.boolean(),
  idempotency: z.string(),
});
export const toolsAnswer = z.object({ tools: z.array(tool) });
export const toolAnswer = tool;

export const callerAnswer = z.object({
  user_id: z.string(),
  tenant_id: z.string(),
  username: z.string(),
  email: z.string(),
  roles: z.array(z.enum(roles)),
  key_id: z.string().optional(),
  tier: z.string(),
  quotas: z.object({ rate_limit_minute: z.number().nullable() }),
  rate_limits: z.object({ minute: z.object({ limit: z.number(), remaining: z.number(), reset_seconds: z.number() }).nullable() }),
});
export const apiKeysAnswer = z.object({
  keys: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      key_prefix: z.string(),
      description: z.string().optional(),
      user_id: z.string(),
      roles: z.array(z.enum(roles)),
      created_at: timestamp,
      expires_at: timestamp.optional(),
      is_active: z.boolean(),
    }),
  ),
  total: z.number(),
});

export const taskReviewAnswer = z.object({
  status: z.string(),
  round: z.number(),
  version: z.number().describe('also the ETag; If-Match on POST refuses a stale review'),
  max_rounds: z.number(),
  current_plan: z.string().describe('the plan as JSON'),
  rounds: z.array(z.object({ role: z.string(), message: z.string(), round: z.number(), by: z.string(), timestamp })),
  query: z.string(),
  last_error: z.string(),
});

const scheduleInfo = z.object({
  schedule_id: z.string(),
  name: z.string(),
  description: z.string(),
  cron_expression: z.string(),
  timezone: z.string(),
  task_query: z.string(),
  task_context: z.record(z.string(), z.string()),
  max_budget_per_run_usd: z.number(),
  timeout_seconds: z.number(),
  status: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_run_at: z.string(),
  next_run_at: z.string(),
  total_runs: z.number(),
  successful_runs: z.number(),
  failed_runs: z.number(),
  interval: z.string(),
  overlap_policy: z.string(),
  note: z.string(),
  user_id: z.string(),
});
const page = { total_count: z.number(), page: z.number(), page_size: z.number() };
export const schedulesAnswer = z.object({ schedules: z.array(scheduleInfo), ...page });
export const scheduleAnswer = scheduleInfo;
export const scheduleRunsAnswer = z.object({
  runs: z.array(
    z.object({
      workflow_id: z.string(),
      query: z.string(),
      status: z.string(),
      result: z.string().optional(),
      error_message: z.string().optional(),
      model_used: z.string().optional(),
      total_tokens: z.number(),
      total_cost_usd: z.number(),
      duration_ms: z.number().optional(),
      triggered_at: timestamp,
      started_at: timestamp,
      completed_at: timestamp.optional(),
    }),
  ),
  ...page,
});
export const scheduleChangedAnswer = z.object({ success: z.boolean(), message: z.string(), next_run_at: z.string().optional() });
