import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { Pool } from 'pg';
import type { Registry } from 'prom-client';
import type { Principal } from '../../core/auth/api-keys';
import type { ToolRegistry } from '../../core/tools/registry';
import { JsonMappingError } from '../../protos/json-mapping';
import type { Authenticator } from '../tasks/auth';
import { shannonErrors } from '../http/http-errors';
import type { HttpRoute } from '../http/http-route';
import type { JsonObject } from './route-adapter';
import type { TaskStarter } from '../tasks/task-start';
import type { AgentCatalog } from '../../core/agents/agent-catalog';
import type { SkillCatalog } from '../../core/skills/skill-catalog';
import type { ScheduleService } from '../tasks/schedules';

// Shannon's gateway routes that have no gRPC counterpart in the seed (a task's events and timeline,
// files, tools, agents, skills, keys, health): each authenticates like every other route and reports
// errors in the same body, `{"error": "...", "code": "...", "status": "..."}`.

export interface ShannonDeps {
  auth: Authenticator;
  pool: Pool;
  temporal: Client;
  tools: ToolRegistry;
  agents: AgentCatalog;
  skills: SkillCatalog;
  /** Where the worker's file tools keep sessions' workspaces and users' memory (read for the file routes). */
  workspaceDir: string;
  /** Starts a task as SubmitTask does (tenant shares, sessions, idempotency), with the limits its input is checked against. */
  tasks: TaskStarter;
  /** Schedules on Temporal Schedules, as gRPC's schedule RPCs serve them. */
  schedules: ScheduleService;
  /** The API's metrics, served at /metrics as on the metrics port. */
  metrics?: { registry: Registry; token?: string };
}

export interface ShannonCall {
  /** Absent on public routes (health). */
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface ShannonAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** JSON, or text with a content type in the headers. */
  body: JsonObject | string;
}

export interface ShannonRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** With `:name` path parameters; `*` is the rest of the path. */
  path: string;
  summary: string;
  tag: string;
  /** Query parameters the route reads; any other is refused. */
  query?: readonly string[];
  /** Answered without an API key (health checks). */
  public?: boolean;
  /** The JSON body the route reads, if any. */
  body?: z.ZodType;
  /** What it answers with (200 unless `answerStatus`): JSON unless `answerType` says otherwise. */
  answer: z.ZodType;
  answerStatus?: number;
  answerType?: string;
  handle(call: ShannonCall, deps: ShannonDeps): Promise<ShannonAnswer>;
}

/** A request Shannon's client could have sent differently: 400 with what was wrong. */
export const badRequest = (message: string) => new JsonMappingError(message);

/** A Shannon route in the one route table: its query strictly as listed, Shannon's error body. */
export function shannonHttpRoute(route: ShannonRoute): HttpRoute<ShannonDeps> {
  return {
    method: route.method,
    path: route.path,
    summary: route.summary,
    tag: route.tag,
    auth: route.public ? 'public' : 'api_key',
    errors: shannonErrors,
    query: z.object(Object.fromEntries((route.query ?? []).map((name) => [name, z.string().optional()]))),
    refusesOtherQuery: true,
    ...(route.body ? { body: { schema: route.body, required: false } } : {}),
    answer: {
      ...(route.answerStatus ? { status: route.answerStatus } : {}),
      description: 'OK',
      ...(route.answerType ? { contentType: route.answerType } : {}),
      schema: route.answer,
    },
    async handle({ request, principal }, reply, deps) {
      const answer = await route.handle({ principal, params: request.params, query: request.query, body: request.body, headers: request.headers }, deps);
      return reply
        .code(answer.status ?? 200)
        .headers(answer.headers ?? {})
        .send(answer.body);
    },
  };
}

/** A query parameter as a bounded integer, its default when absent. */
export function integerParam(query: Record<string, unknown>, name: string, fallback: number, bounds: { min: number; max: number }): number {
  const given = query[name];
  if (given === undefined || given === '') return fallback;
  const value = Number(given);
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) throw badRequest(`${name} must be an integer from ${bounds.min} to ${bounds.max}`);
  return value;
}
