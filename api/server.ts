import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EventFeed } from '../core/events/event-feed';
import { protoFilesByPort } from '../protos/load';
import { createAgentService } from './grpc/agent/agent-service';
import { createAiService } from './grpc/ai/ai-service';
import { startGrpcServer } from './grpc/grpc-server';
import { runningTasks } from './tasks/running-tasks';
import { callObserver, type RequestMetrics } from './grpc/request-telemetry';
import { createTenantAdmission, unlimitedQuotas, type TenantAdmission } from './tasks/tenant-admission';
import { readTlsMaterial } from './grpc/tls';
import { createLlmService, type LlmDeps } from './grpc/llm/llm-service';
import { startRestGateway, type RestGateway, type RestGatewayOptions } from './rest/gateway';
import { createOrchestratorService, type OrchestratorDeps } from './grpc/orchestrator/orchestrator-service';
import { createSessionService } from './grpc/session/session-service';
import type { SessionDefaults } from './tasks/session-defaults';
import { createStreamingService } from './grpc/streaming/streaming-service';
import { defaultToolSecretPrefix, type WeftConfig } from '../core/config';
import type { RuntimeSourceRules } from '../core/tools/runtime-source-rules';
import { findModel } from '../core/llm/model-catalog';
import { startTaskWorkflow } from './tasks/task-start';
import { submissionLimits } from './tasks/task-submission';
import { createScheduleService } from './tasks/schedules';
import type { Registry } from 'prom-client';
import type { Principal } from '../core/auth/api-keys';
import type { OpenAiModelCatalog } from '../core/openai/model-catalog';
import type { TaskWorkflowInput } from '../workflows/task-workflow-types';

/** Where the API listens (core/config.ts reads it); every port may be 0 (a free one). */
export type ApiListen = WeftConfig['listen'];

export interface ApiServer {
  /** Orchestrator, Streaming, Session and ai.AIService. */
  port: number;
  agentPort: number;
  llmPort: number;
  httpPort: number;
  /** Every route the HTTP port serves (its method and Fastify path). */
  httpRoutes: RestGateway['routes'];
  /** Task event streams open now (gRPC and SSE). */
  openStreams(): number;
  shutdown(): Promise<void>;
}

export type ApiDeps = OrchestratorDeps &
  Omit<LlmDeps, 'auth' | 'tools' | 'pool'> & {
    events: EventFeed;
    sessions: SessionDefaults;
    /** The Python sandbox's memory cap, which GetCapabilities reports. */
    sandboxMemoryMb: number;
    /** The models OpenAI clients name (openai-models.yaml). */
    openAiModels: OpenAiModelCatalog;
    /** Where the worker's file tools write (WEFT_WORKSPACE_DIR): the file routes read it. */
    workspaceDir: string;
    /** Keys ("mcp:<name>", "openapi:<name>") of the tool sources in configuration. */
    configuredToolSources?: string[];
    /** What runtime tool sources may reach and read; nothing by default. */
    toolSourceRules?: RuntimeSourceRules;
    /** Where every call is counted and timed (the API's /metrics); spans and log lines are made either way. */
    requestMetrics?: RequestMetrics;
    /** The API's metrics, also served at /metrics on the REST port (with the metrics port's token). */
    metrics?: { registry: Registry; token?: string };
  };

/** Every port on free ones, for tests and benchmarks. */
export function ephemeralListen(host = '127.0.0.1'): ApiListen {
  return { host, port: 0, agentPort: 0, llmPort: 0, httpPort: 0, maxMessageBytes: 1024 * 1024, sseKeepAliveMs: 15_000 };
}

/**
 * What the gateway's own routes need: Shannon's shapes around the gRPC calls and Shannon's routes of
 * their own (api/shannon/), and OpenAI's routes (api/openai/); all start tasks as SubmitTask does.
 */
function gatewayDepsOf(deps: ApiDeps, admission: TenantAdmission): Pick<RestGatewayOptions, 'shannon' | 'shannonRoutes' | 'openAi'> {
  const tasks = {
    start: (input: TaskWorkflowInput, principal: Principal, fingerprint: string) => startTaskWorkflow({ ...deps, admission }, input, principal, fingerprint),
    limits: submissionLimits(deps),
  };
  return {
    shannon: {
      pool: deps.pool,
      auth: deps.auth,
      sessions: deps.sessions,
      providerOf: (model) => findModel(deps.gateway.catalog, model)?.provider,
    },
    shannonRoutes: {
      auth: deps.auth,
      pool: deps.pool,
      temporal: deps.temporal,
      tools: deps.tools,
      agents: deps.agents,
      skills: deps.skills,
      workspaceDir: path.resolve(deps.workspaceDir),
      tasks,
      schedules: createScheduleService({ ...deps, limits: tasks.limits }),
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    },
    openAi: {
      auth: deps.auth,
      pool: deps.pool,
      running: runningTasks(deps.temporal),
      events: deps.events,
      models: deps.openAiModels,
      sessions: deps.sessions,
      tasks,
      agents: deps.agents,
    },
  };
}

/** Starts the front door: the gRPC ports of the seed and the REST/SSE gateway. */
export async function startApiServer(deps: ApiDeps, listen: ApiListen): Promise<ApiServer> {
  const streaming = createStreamingService(deps);
  // One gate of tenant shares for every service that starts tasks, so a tenant's spent quota is
  // refused from memory whichever door it knocks on.
  const admission = createTenantAdmission(deps, deps.tenantQuotas ?? unlimitedQuotas);
  const tls = listen.tls ? readTlsMaterial(listen.tls) : undefined;
  const common = { host: listen.host, maxMessageBytes: listen.maxMessageBytes, observe: callObserver(deps.requestMetrics), ...(tls ? { tls } : {}) };
  // The gateway calls the front services in process; their streams it reaches through a socket in
  // a folder only this user can enter, so it needs no TLS client identity of its own.
  const socketDir = mkdtempSync(path.join(tmpdir(), 'weft-api-'));
  const gatewaySocket = path.join(socketDir, 'front.sock');
  const front = await startGrpcServer({
    ...common,
    privateSocket: gatewaySocket,
    port: listen.port,
    protoFiles: protoFilesByPort.front,
    services: {
      'shannon.orchestrator.OrchestratorService': createOrchestratorService(deps, admission),
      'shannon.orchestrator.StreamingService': streaming.handlers,
      'shannon.session.SessionService': createSessionService({ ...deps, running: runningTasks(deps.temporal) }),
      'ai.AIService': createAiService(deps),
    },
    beforeShutdown: () => streaming.endAll(),
  });
  const agents = createAgentService(deps, admission);
  const agent = await startGrpcServer({
    ...common,
    port: listen.agentPort,
    protoFiles: protoFilesByPort.agent,
    services: { 'shannon.agent.AgentService': agents.handlers },
    beforeShutdown: () => agents.endAll(),
  });
  const llm = await startGrpcServer({
    ...common,
    port: listen.llmPort,
    protoFiles: protoFilesByPort.llm,
    services: { 'shannon.llm.LLMService': createLlmService(deps) },
  });
  const gateway = await startRestGateway({
    host: listen.host,
    port: listen.httpPort,
    grpcAddress: `unix:${gatewaySocket}`,
    frontServices: front.invoke,
    ...(tls ? { tls } : {}),
    maxBodyBytes: listen.maxMessageBytes,
    sseKeepAliveMs: listen.sseKeepAliveMs,
    callDeadlineMs: 60_000,
    toolDiscovery: {
      auth: deps.auth,
      tools: deps.tools,
      pool: deps.pool,
      configuredSources: deps.configuredToolSources ?? [],
      sourceRules: deps.toolSourceRules ?? { allowlists: { mcp: [], openapi: [] }, secretPrefix: defaultToolSecretPrefix },
    },
    ...gatewayDepsOf(deps, admission),
  });
  return {
    openStreams: () => streaming.openCount(),
    port: front.port,
    agentPort: agent.port,
    llmPort: llm.port,
    httpPort: gateway.port,
    httpRoutes: gateway.routes,
    shutdown: async () => {
      await Promise.all([front.shutdown(), agent.shutdown(), llm.shutdown(), gateway.close()]);
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
