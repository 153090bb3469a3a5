import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import type { Registry } from 'prom-client';
import type { Principal } from '../../core/auth/api-keys';
import type { ToolRegistry } from '../../core/tools/registry';
import { JsonMappingError } from '../../protos/json-mapping';
import type { Authenticator } from '../tasks/auth';
import { httpErrorOf } from '../http/http-errors';
import { authorizationOf } from '../http/credentials';
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
  handle(call: ShannonCall, deps: ShannonDeps): Promise<ShannonAnswer>;
}

/** A request Shannon's client could have sent differently: 400 with what was wrong. */
export const badRequest = (message: string) => new JsonMappingError(message);

function errorAnswer(err: unknown): ShannonAnswer {
  const { httpStatus, body } = httpErrorOf(err);
  return { status: httpStatus, body };
}

export function registerShannonRoutes(app: FastifyInstance, routes: readonly ShannonRoute[], deps: ShannonDeps): void {
  for (const route of routes) {
    app.route<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>({
      method: route.method,
      url: route.path,
      handler: async (request, reply) => {
        const answer = await (async () => {
          try {
            const unknown = Object.keys(request.query).filter((name) => !(route.query ?? []).includes(name));
            if (unknown.length > 0) throw badRequest(`unknown query parameter ${unknown[0]}`);
            const principal = route.public ? undefined : await deps.auth.authenticate(authorizationOf(request.headers));
            return await route.handle(
              { principal: principal!, params: request.params, query: request.query, body: request.body, headers: request.headers },
              deps,
            );
          } catch (err) {
            return errorAnswer(err);
          }
        })();
        return reply
          .code(answer.status ?? 200)
          .headers(answer.headers ?? {})
          .send(answer.body);
      },
    });
  }
}

/** A query parameter as a bounded integer, its default when absent. */
export function integerParam(query: Record<string, unknown>, name: string, fallback: number, bounds: { min: number; max: number }): number {
  const given = query[name];
  if (given === undefined || given === '') return fallback;
  const value = Number(given);
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) throw badRequest(`${name} must be an integer from ${bounds.min} to ${bounds.max}`);
  return value;
}
