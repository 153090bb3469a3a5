// `make up`: starts the whole stack locally and stops all of it on Ctrl-C.
// Temporal (dev server with a persistent SQLite file, unless TEMPORAL_ADDRESS points elsewhere),
// Postgres (the local server, or an embedded one), the demo model when no provider is configured,
// then the worker and the API. State lives in .state/, so a second `make up` picks up where it was.
import path from 'node:path';
import { loadConfig, type WeftConfig } from '../core/config';
import { redactUrl } from '../core/db/database';
import { DEMO_MODEL } from '../test/model-server/scripted-model-server';
import { buildWorkflowBundle } from './build-workflow-bundle';
import { migrateDatabase } from '../core/db/migrate';
import { ensureDevApiKey } from './dev-api-key';
import { ensurePostgres } from './postgres';
import { apiNodeFlags, startProcess, stopProcess, workerNodeFlags, type ManagedProcess } from './processes';
import { ensureSearchAttributes, startDevServer, stateDir, type RunningDevServer } from './temporal-dev-server';

const log = (line: string) => console.log(`[up] ${line}`);
const demoModelPort = 8090;

/** What `make up` prints once everything is starting: endpoints, the model in use, the development key. */
function banner({ config, temporalUi, embeddedPostgres, demo, devKey }: { config: WeftConfig; temporalUi: string; embeddedPostgres: boolean; demo: boolean; devKey: string }): string {
  return [
    '',
    'Weft is starting:',
    `  gRPC API                 127.0.0.1:${config.listen.port} (Orchestrator, Streaming, Session, ai.AIService)`,
    `                           127.0.0.1:${config.listen.agentPort} (AgentService), 127.0.0.1:${config.listen.llmPort} (LLMService)`,
    `  REST and SSE             http://127.0.0.1:${config.listen.httpPort}/api/v1  (OpenAPI: /openapi.json)`,
    `  Temporal                 ${config.temporal.address}  (Web UI: ${temporalUi})`,
    `  Postgres                 ${redactUrl(config.databaseUrl)}${embeddedPostgres ? '  (embedded)' : ''}`,
    `  Metrics                  http://127.0.0.1:${config.apiMetricsPort}/metrics (API), http://127.0.0.1:${config.metricsPort}/metrics (worker)`,
    demo
      ? `  Model                    DEMO: the scripted test model on :${demoModelPort}, not a real LLM.\n` +
        '                           Set OPENAI_API_KEY, WEFT_LLM_BASE_URL or WEFT_MODEL_CATALOG for real answers.'
      : `  Models                   ${config.catalog.models.map((m) => `${m.id} (${m.tier})`).join(', ')}\n` +
        `                           from ${config.catalog.providers.map((p) => `${p.id} at ${p.base_url ?? 'api.openai.com'}`).join(', ')}`,
    '',
    `  API key (development)    ${devKey}`,
    '                           (tenant "dev", approver; the weft CLI reads it from .state/dev-api-key;',
    '                           other clients send "authorization: Bearer <key>")',
    '',
    'Try:  npm run weft -- submit "What is durable execution?" --watch',
    `      npm run weft -- submit "Research and compare how long a year is" --watch${demo ? '   (the demo\'s COMPLEX plan, with an approval)' : ''}`,
    '      npm run temporal -- workflow list      npm run weft -- --help',
    'Stop: Ctrl-C',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const stops: Array<() => Promise<void>> = [];
  const processes: ManagedProcess[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping...');
    for (const proc of [...processes].reverse()) await stopProcess(proc);
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`stop failed: ${String(err)}`));
    log('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    const postgres = await ensurePostgres(loadConfig(env).databaseUrl, Boolean(process.env.DATABASE_URL), log);
    stops.push(postgres.stop);
    env.DATABASE_URL = postgres.databaseUrl;

    let temporalUi = 'your cluster\'s Web UI';
    if (process.env.TEMPORAL_ADDRESS) {
      log(`using the Temporal cluster at ${process.env.TEMPORAL_ADDRESS}`);
      await ensureSearchAttributes(process.env.TEMPORAL_ADDRESS, loadConfig(env).temporal.namespace);
    } else {
      log('starting the Temporal dev server (state in .state/temporal)...');
      const temporal: RunningDevServer = await startDevServer(
        {
          port: 7233,
          uiPort: 8233,
          dbFile: path.join(stateDir, 'temporal', 'temporal.db'),
          logFile: path.join(stateDir, 'temporal', 'server.log'),
        },
        log,
      );
      stops.push(temporal.stop);
      env.TEMPORAL_ADDRESS = temporal.address;
      temporalUi = 'http://127.0.0.1:8233';
    }

    const demo = !env.WEFT_MODEL_CATALOG && !env.WEFT_LLM_BASE_URL && !env.OPENAI_API_KEY && !env.WEFT_LLM_API_KEY;
    if (demo) {
      processes.push(startProcess('demo-model', 'test/model-server/main.ts', { ...env, WEFT_DEMO_MODEL_PORT: String(demoModelPort) }));
      env.WEFT_LLM_BASE_URL = `http://127.0.0.1:${demoModelPort}/v1`;
      env.WEFT_LLM_MODEL = DEMO_MODEL;
    }

    log('bundling the workflow code...');
    env.WEFT_WORKFLOW_BUNDLE = await buildWorkflowBundle();
    await migrateDatabase(env.DATABASE_URL!);
    const devKey = await ensureDevApiKey(env.DATABASE_URL!);
    const worker = startProcess('worker', 'workers/main.ts', env, workerNodeFlags);
    const api = startProcess('api', 'api/main.ts', env, apiNodeFlags);
    processes.push(worker, api);
    for (const proc of [worker, api]) {
      void proc.exited.then((code) => {
        if (!stopping) {
          log(`${proc.name} exited with code ${code}; stopping everything`);
          void stopAll(1);
        }
      });
    }

    console.log(banner({ config: loadConfig(env), temporalUi, embeddedPostgres: postgres.embedded, demo, devKey }));
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    await stopAll(1);
  }
}

void main();
