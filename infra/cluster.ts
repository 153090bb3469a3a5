// `make cluster`: Weft as production runs it, on one machine. Temporal's real server as separate
// processes (frontend, two history hosts, matching, worker) on Postgres, its standalone Web UI,
// two Weft workers and two Weft APIs on one task queue and one database. Ctrl-C stops everything;
// Temporal's and Weft's state stay in Postgres for the next start.
import path from 'node:path';
import { loadConfig } from '../core/config';
import { redactUrl } from '../core/db/database';
import { createSupervisor } from './supervisor';
import { clusterDatabases, startTemporalCluster } from './temporal-cluster';
import type { ClusterPorts } from './temporal-cluster-config';
import { stateDir } from './temporal-dev-server';
import { modelsLine, needsDemoModel, prepareWeft, startDemoModel, startPostgres, startWeftProcesses, untilReady } from './weft-launch';

const log = (line: string) => console.log(`[cluster] ${line}`);
const ports: ClusterPorts = {
  frontend: { grpc: 7233, membership: 6933, http: 7243 },
  history: [
    { grpc: 7234, membership: 6934 },
    { grpc: 7244, membership: 6944 },
  ],
  matching: { grpc: 7235, membership: 6935 },
  worker: { grpc: 7239, membership: 6939 },
  ui: 8233,
};

/** The second API's ports, beside the first's defaults (50052, 50051, 8000, 8080, metrics 9465). */
const secondApi = { WEFT_GRPC_PORT: '50062', WEFT_AGENT_GRPC_PORT: '50061', WEFT_LLM_GRPC_PORT: '8001', WEFT_HTTP_PORT: '8081', WEFT_API_METRICS_PORT: '9475' };

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const supervisor = createSupervisor(log);
  try {
    const postgres = await startPostgres(env, supervisor, log);
    const config = loadConfig(env);

    const cluster = await startTemporalCluster({
      dir: path.join(stateDir, 'cluster'),
      databaseUrl: postgres.databaseUrl,
      ports,
      databases: clusterDatabases,
      namespace: config.temporal.namespace,
      log,
      started: (proc) => supervisor.add(proc, { essential: true }),
    });
    env.TEMPORAL_ADDRESS = cluster.address;

    const demo = needsDemoModel(env);
    if (demo) startDemoModel(env, supervisor);
    const devKey = await prepareWeft(env, log);
    const ready = await untilReady(startWeftProcesses(env, supervisor, { workers: [{}, { WEFT_METRICS_PORT: '9474' }], apis: [{}, secondApi] }), log);
    console.log(
      [
        '',
        ready ? 'Weft is ready on a Temporal cluster:' : 'Weft is still starting on a Temporal cluster (see above):',
        `  Temporal frontend        ${cluster.address}   (history :${ports.history[0].grpc} and :${ports.history[1].grpc}, matching :${ports.matching.grpc}, worker :${ports.worker.grpc}; logs in .state/cluster/logs)`,
        `  Temporal Web UI          ${cluster.uiUrl}`,
        `  Postgres                 ${redactUrl(postgres.databaseUrl)} (Weft), databases temporal and temporal_visibility (Temporal)`,
        `  Weft API 1               gRPC 127.0.0.1:${config.listen.port}, REST http://127.0.0.1:${config.listen.httpPort}/api/v1, metrics :${config.apiMetricsPort}`,
        `  Weft API 2               gRPC 127.0.0.1:${secondApi.WEFT_GRPC_PORT}, REST http://127.0.0.1:${secondApi.WEFT_HTTP_PORT}/api/v1, metrics :${secondApi.WEFT_API_METRICS_PORT}`,
        `  Weft workers             2 on task queue ${config.temporal.taskQueue}, metrics :${config.metricsPort} and :9474`,
        modelsLine(demo, config.catalog),
        '',
        `  API key (development)    ${devKey}`,
        '',
        'Try:  npm run weft -- submit "What is durable execution?" --watch',
        `      npm run weft -- --api 127.0.0.1:${secondApi.WEFT_GRPC_PORT} list`,
        'Stop: Ctrl-C',
        '',
      ].join('\n'),
    );
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    await supervisor.stopAll(1);
  }
}

void main();
