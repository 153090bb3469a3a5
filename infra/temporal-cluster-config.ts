import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

// The configuration files of `make cluster`'s Temporal: one per server process (frontend, two
// history hosts, matching, worker), each naming its own service's ports; all of them share the
// Postgres databases (default and visibility), the shard count, the membership (through the
// database) and the dynamic config. The Web UI server gets its own.

/** A service's gRPC port and its ringpop membership port. */
export interface ServicePorts {
  grpc: number;
  membership: number;
}

export interface ClusterPorts {
  frontend: ServicePorts & { http: number };
  history: [ServicePorts, ServicePorts];
  matching: ServicePorts;
  worker: ServicePorts;
  ui: number;
}

/** Temporal's two databases. */
export interface ClusterDatabases {
  default: string;
  visibility: string;
}

export interface ServerProcess {
  /** The config file's name (`--env`) and the process's name. */
  name: string;
  service: 'frontend' | 'history' | 'matching' | 'worker';
}

export const serverProcesses: ServerProcess[] = [
  { name: 'history-1', service: 'history' },
  { name: 'history-2', service: 'history' },
  { name: 'matching', service: 'matching' },
  { name: 'frontend', service: 'frontend' },
  { name: 'worker', service: 'worker' },
];

/** Fixed for the life of a cluster's databases: Temporal cannot change it later. */
const numHistoryShards = 4;

function datastore(postgres: URL, databaseName: string, maxConns: number) {
  return {
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${postgres.hostname}:${postgres.port || '5432'}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(postgres.username || 'postgres'),
      password: decodeURIComponent(postgres.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

const rpc = (ports: ServicePorts, extra: object = {}) => ({ rpc: { grpcPort: ports.grpc, membershipPort: ports.membership, bindOnLocalHost: true, ...extra } });

function serverConfig(process: ServerProcess, ports: ClusterPorts, databases: ClusterDatabases, postgres: URL, dynamicConfigFile: string) {
  const historyPorts = process.name === 'history-2' ? ports.history[1] : ports.history[0];
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards,
      datastores: { 'postgres-default': datastore(postgres, databases.default, 10), 'postgres-visibility': datastore(postgres, databases.visibility, 4) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: rpc(ports.frontend, { httpPort: ports.frontend.http }),
      history: rpc(historyPorts),
      matching: rpc(ports.matching),
      worker: rpc(ports.worker),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend.grpc}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

/** Server settings that differ from Temporal's defaults, for a cluster on one small machine. */
const dynamicConfig = {
  // A new search attribute is usable at once rather than after the cache's refresh.
  'system.forceSearchAttributesCacheRefreshOnRead': [{ value: true }],
  // One partition per task queue: on one machine, more only spread a worker's polls thin.
  'matching.numTaskqueueReadPartitions': [{ value: 1 }],
  'matching.numTaskqueueWritePartitions': [{ value: 1 }],
  // Where tasks wait for a worker, each fairness key (Weft: the task's tenant) is dispatched in turn,
  // so one tenant's backlog does not queue another's work behind it. WEFT_TEMPORAL_FAIRNESS=off: first in, first out.
  ...(process.env.WEFT_TEMPORAL_FAIRNESS === 'off' ? {} : { 'matching.enableFairness': [{ value: true }] }),
};

/** Writes every config file under `dir`; the server's config folder and the UI's. */
export function writeClusterConfig(
  dir: string,
  ports: ClusterPorts,
  databases: ClusterDatabases,
  databaseUrl: string,
): { serverConfigDir: string; uiConfigDir: string } {
  const postgres = new URL(databaseUrl);
  const serverConfigDir = path.join(dir, 'temporal-config');
  const uiConfigDir = path.join(dir, 'ui-config');
  mkdirSync(serverConfigDir, { recursive: true });
  mkdirSync(uiConfigDir, { recursive: true });
  const dynamicConfigFile = path.join(serverConfigDir, 'dynamicconfig.yaml');
  writeFileSync(dynamicConfigFile, stringify(dynamicConfig));
  for (const process of serverProcesses) {
    writeFileSync(path.join(serverConfigDir, `${process.name}.yaml`), stringify(serverConfig(process, ports, databases, postgres, dynamicConfigFile)));
  }
  writeFileSync(path.join(uiConfigDir, 'base.yaml'), stringify({ temporalGrpcAddress: `127.0.0.1:${ports.frontend.grpc}`, port: ports.ui }));
  writeFileSync(
    path.join(uiConfigDir, 'development.yaml'),
    stringify({
      enableUi: true,
      defaultNamespace: 'default',
      refreshInterval: '1m',
      cors: { cookieInsecure: true, allowOrigins: ['*'], unsafeAllowAllOrigins: true },
      notifyOnNewVersion: false,
    }),
  );
  return { serverConfigDir, uiConfigDir };
}
