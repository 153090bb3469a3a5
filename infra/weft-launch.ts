import { setTimeout } from 'node:timers/promises';
import { loadConfig } from '../core/config';
import type { ModelCatalog } from '../core/llm/model-catalog';
import { ensurePostgres, type PostgresHandle } from './postgres';
import { migrateDatabase } from '../core/db/migrate';
import { DEMO_MODEL } from '../test/model-server/scripted-model-server';
import { buildWorkflowBundle } from './build-workflow-bundle';
import { ensureDevApiKey } from './dev-api-key';
import { apiNodeFlags, startProcess, workerEnv, workerNodeFlags } from './processes';
import type { Supervisor } from './supervisor';

// Weft's own processes as `make up` and `make cluster` start them: the demo model when no provider
// is configured, then the workers and APIs (each with the settings that tell it apart).

export const demoModelPort = 8090;

/** Postgres for `env`'s DATABASE_URL (or an embedded one when it was not set and none answers), stopped with the rest; `env` points at it. */
export async function startPostgres(env: NodeJS.ProcessEnv, supervisor: Supervisor, log: (line: string) => void): Promise<PostgresHandle> {
  const postgres = await ensurePostgres(loadConfig(env).databaseUrl, Boolean(env.DATABASE_URL), log);
  supervisor.onStop(postgres.stop);
  env.DATABASE_URL = postgres.databaseUrl;
  return postgres;
}

/** Whether no model provider is configured, so the demo model answers. */
export const needsDemoModel = (env: NodeJS.ProcessEnv) => !env.WEFT_MODEL_CATALOG && !env.WEFT_LLM_BASE_URL && !env.OPENAI_API_KEY && !env.WEFT_LLM_API_KEY;

/** Starts the demo model and points `env` at it. */
export function startDemoModel(env: NodeJS.ProcessEnv, supervisor: Supervisor): void {
  supervisor.add(startProcess('demo-model', 'test/model-server/main.ts', { ...env, WEFT_DEMO_MODEL_PORT: String(demoModelPort) }));
  env.WEFT_LLM_BASE_URL = `http://127.0.0.1:${demoModelPort}/v1`;
  env.WEFT_LLM_MODEL = DEMO_MODEL;
}

/**
 * Bundles the workflows once for every worker (so they are one build, named by that code), migrates
 * the database, and makes the development key; the key. The workers' build becomes the current
 * version once they poll: new tasks run on it, a task an earlier build started stays on that build.
 */
export async function prepareWeft(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<string> {
  log('bundling the workflow code...');
  env.WEFT_WORKFLOW_BUNDLE = await buildWorkflowBundle();
  env.WEFT_WORKER_PROMOTE ??= 'always';
  await migrateDatabase(env.DATABASE_URL!);
  return ensureDevApiKey(env.DATABASE_URL!);
}

/**
 * Starts workers and APIs, each with its own settings on top of `env`; any of them exiting stops
 * everything. The URL of each one's readiness probe (GET /readyz on its metrics port).
 */
export function startWeftProcesses(
  env: NodeJS.ProcessEnv,
  supervisor: Supervisor,
  processes: { workers: Array<Record<string, string>>; apis: Array<Record<string, string>> },
): string[] {
  const named = (kind: string, i: number, count: number) => (count > 1 ? `${kind}-${i + 1}` : kind);
  processes.workers.forEach((own, i) =>
    supervisor.add(startProcess(named('worker', i, processes.workers.length), 'workers/main.ts', { ...env, ...workerEnv, ...own }, workerNodeFlags), {
      essential: true,
    }),
  );
  processes.apis.forEach((own, i) =>
    supervisor.add(startProcess(named('api', i, processes.apis.length), 'api/main.ts', { ...env, ...own }, apiNodeFlags), { essential: true }),
  );
  const probe = (port: number) => `http://127.0.0.1:${port}/readyz`;
  return [
    ...processes.workers.map((own) => probe(loadConfig({ ...env, ...own }).metricsPort)),
    ...processes.apis.map((own) => probe(loadConfig({ ...env, ...own }).apiMetricsPort)),
  ];
}

/**
 * Waits (up to two minutes) until every probe answers 200: a worker once it polls its task queue,
 * an API once Postgres and Temporal answer it. So the commands printed next work when pasted at
 * once. Whether all of them became ready; the ones that did not are logged.
 */
export async function untilReady(probes: string[], log: (line: string) => void, timeoutMs = 120_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let waiting = probes;
  while (waiting.length > 0 && Date.now() < deadline) {
    const answers = await Promise.all(
      waiting.map(async (url) => ({
        url,
        ready: await fetch(url).then(
          (res) => res.ok,
          () => false,
        ),
      })),
    );
    waiting = answers.filter((answer) => !answer.ready).map((answer) => answer.url);
    if (waiting.length > 0) await setTimeout(500);
  }
  if (waiting.length > 0) log(`not ready after ${timeoutMs / 1000} s: ${waiting.join(', ')} (their lines above say why)`);
  return waiting.length === 0;
}

/** The models line of the banner. */
export function modelsLine(demo: boolean, catalog: ModelCatalog): string {
  return demo
    ? `  Model                    DEMO: the scripted test model on :${demoModelPort}, not a real LLM.\n` +
        '                           Set OPENAI_API_KEY, WEFT_LLM_BASE_URL or WEFT_MODEL_CATALOG for real answers.'
    : `  Models                   ${catalog.models.map((m) => `${m.id} (${m.tier})`).join(', ')}\n` +
        `                           from ${catalog.providers.map((p) => `${p.id} at ${p.base_url ?? 'api.openai.com'}`).join(', ')}`;
}
