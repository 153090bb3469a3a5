// `make up`: starts the whole stack locally and stops all of it on Ctrl-C.
// Temporal (dev server with a persistent SQLite file, unless TEMPORAL_ADDRESS points elsewhere),
// Postgres (the local server, or an embedded one), the demo model when no provider is configured,
// then the worker and the API. State lives in .state/, so a second `make up` picks up where it was.
import path from 'node:path';
import { loadConfig, type WeftConfig } from '../core/config';
import { redactUrl } from '../core/db/database';
import { createSupervisor } from './supervisor';
import { modelsLine, needsDemoModel, prepareWeft, startDemoModel, startPostgres, startWeftProcesses, untilReady } from './weft-launch';
import { ensureSearchAttributes, startDevServer, stateDir, type RunningDevServer } from './temporal-dev-server';

const log = (line: string) => console.log(`[up] ${line}`);
/** What `make up` prints once everything is ready (or has had its time): endpoints, the model in use, the development key. */
function banner({
  config,
  temporalUi,
  embeddedPostgres,
  demo,
  devKey,
  ready,
}: {
  config: WeftConfig;
  temporalUi: string;
  embeddedPostgres: boolean;
  demo: boolean;
  devKey: string;
  ready: boolean;
}): string {
  return [
    '',
    ready ? 'Weft is ready:' : 'Weft is still starting (see above):',
    `  gRPC API                 127.0.0.1:${config.listen.port} (Orchestrator, Streaming, Session, ai.AIService)`,
    `                           127.0.0.1:${config.listen.agentPort} (AgentService), 127.0.0.1:${config.listen.llmPort} (LLMService)`,
    `  REST and SSE             http://127.0.0.1:${config.listen.httpPort}/api/v1  (OpenAPI: /openapi.json)`,
    `  Temporal                 ${config.temporal.address}  (Web UI: ${temporalUi})`,
    `  Postgres                 ${redactUrl(config.databaseUrl)}${embeddedPostgres ? '  (embedded)' : ''}`,
    `  Metrics                  http://127.0.0.1:${config.apiMetricsPort}/metrics (API), http://127.0.0.1:${config.metricsPort}/metrics (worker)`,
    modelsLine(demo, config.catalog),
    '',
    `  API key (development)    ${devKey}`,
    '                           (tenant "dev", approver; the weft CLI reads it from .state/dev-api-key;',
    '                           other clients send "authorization: Bearer <key>")',
    '',
    'Try:  npm run weft -- submit "What is durable execution?" --watch',
    `      npm run weft -- submit "Research and compare how long a year is" --watch${demo ? "   (the demo's COMPLEX plan, with an approval)" : ''}`,
    '      npm run temporal -- workflow list      npm run weft -- --help',
    'Stop: Ctrl-C',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const supervisor = createSupervisor(log);
  try {
    const postgres = await startPostgres(env, supervisor, log);

    let temporalUi = "your cluster's Web UI";
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
      supervisor.onStop(temporal.stop);
      env.TEMPORAL_ADDRESS = temporal.address;
      temporalUi = 'http://127.0.0.1:8233';
    }

    const demo = needsDemoModel(env);
    if (demo) {
      startDemoModel(env, supervisor);
      // The demo shows every feature, users' memory notes too: its model calls cost nothing.
      env.WEFT_USER_MEMORY ??= 'on';
    }
    const devKey = await prepareWeft(env, log);
    const ready = await untilReady(startWeftProcesses(env, supervisor, { workers: [{}], apis: [{}] }), log);
    console.log(banner({ config: loadConfig(env), temporalUi, embeddedPostgres: postgres.embedded, demo, devKey, ready }));
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    await supervisor.stopAll(1);
  }
}

void main();
