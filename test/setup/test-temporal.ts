import path from 'node:path';
import type { ManagedProcess } from '../../infra/processes';
import { startTemporalCluster } from '../../infra/temporal-cluster';
import { startDevServer } from '../../infra/temporal-dev-server';
import { freePort } from './free-port';

// The Temporal the tests run against: the CLI's dev server, or with WEFT_TEST_TEMPORAL=cluster
// (`make test-cluster`) the real server as `make cluster` runs it, on free ports and databases of
// its own, so the same suites prove Weft on both.

export interface TestTemporal {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

async function devServer(stateDir: string): Promise<TestTemporal> {
  // With its Web UI, which test/e2e/web-ui.test.ts opens in a browser.
  const uiPort = await freePort();
  const server = await startDevServer({ port: await freePort(), uiPort, logFile: path.join(stateDir, 'temporal.log') });
  return { address: server.address, uiUrl: `http://127.0.0.1:${uiPort}`, stop: server.stop };
}

/** The real server's processes on free ports, with databases named for this process (dropped by stop). */
export async function startTestCluster(stateDir: string, adminUrl: string, dropDatabase: (name: string) => Promise<void>): Promise<TestTemporal> {
  // Membership ports are kept in a smallint column: freePort's are below 32768.
  const service = async () => ({ grpc: await freePort(), membership: await freePort() });
  const ports = {
    frontend: { ...(await service()), http: await freePort() },
    history: [await service(), await service()] as [Awaited<ReturnType<typeof service>>, Awaited<ReturnType<typeof service>>],
    matching: await service(),
    worker: await service(),
    ui: await freePort(),
  };
  const databases = { default: `temporal_test_${process.pid}`, visibility: `temporal_visibility_test_${process.pid}` };
  const processes: ManagedProcess[] = [];
  const stop = async () => {
    for (const proc of processes.reverse()) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
      await proc.exited;
    }
    for (const name of Object.values(databases)) await dropDatabase(name);
  };
  try {
    const running = await startTemporalCluster({
      dir: path.join(stateDir, `cluster-${process.pid}`),
      databaseUrl: adminUrl,
      ports,
      databases,
      namespace: 'default',
      log: (line) => console.log(`[test cluster] ${line}`),
      started: (proc) => void processes.push(proc),
    });
    return { address: running.address, uiUrl: running.uiUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export function startTestTemporal(stateDir: string, adminUrl: string, dropDatabase: (name: string) => Promise<void>): Promise<TestTemporal> {
  return process.env.WEFT_TEST_TEMPORAL === 'cluster' ? startTestCluster(stateDir, adminUrl, dropDatabase) : devServer(stateDir);
}
