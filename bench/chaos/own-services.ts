import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { Client } from 'pg';
import { migrateDatabase } from '../../core/db/migrate';
import { onPath } from '../../infra/go-tools';
import { startDevServer, type RunningDevServer } from '../../infra/temporal-dev-server';
import { freePort } from '../../test/setup/free-port';

// The chaos run's own Postgres and Temporal dev server, in a temporary folder, so that crashing
// them hurts nobody else (never the machine's shared Postgres). Both keep their data across a
// crash, as a production database and cluster do: Postgres with fsync on, recovering from its WAL.

export interface CrashableService {
  address: string;
  /** SIGKILLs the service (no shutdown of any kind), waits `downMs`, and starts it again on the same port with the same data. */
  crash(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A process's children, read from /proc: at once, so that a crash aimed at a moment (calls in
 * flight) strikes then, not after a child process (pgrep) has listed them.
 */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // it has ended
  }
}

/** SIGKILLs a process and its children at once, as a host's crash or the OOM killer would; returns them all. */
function killWithChildren(pid: number): number[] {
  const victims = [pid, ...childrenOf(pid)];
  for (const victim of victims) {
    try {
      process.kill(victim, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return victims;
}

/** Until no process of `pids` is alive. */
async function untilGone(pids: number[]): Promise<void> {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (pids.some(alive)) await pause(20);
}

/** The folder of PostgreSQL's server programs (initdb, pg_ctl): on PATH, or Debian's newest. */
function postgresBinaries(): string {
  const initdb = onPath('initdb');
  if (initdb) return path.dirname(initdb);
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => `/usr/lib/postgresql/${version}/bin`).find((dir) => existsSync(path.join(dir, 'initdb')));
  if (!found) throw new Error('the chaos run needs PostgreSQL server programs (initdb, pg_ctl): apt-get install postgresql');
  return found;
}

/**
 * A Postgres of the run's own (`initdb` in the run's folder, `pg_ctl` to start and stop it). As
 * root, it runs as the `postgres` system user, since Postgres refuses root.
 */
export async function startOwnPostgres(folder: string): Promise<CrashableService> {
  const port = await freePort();
  const bin = postgresBinaries();
  const dataDir = path.join(folder, 'postgres');
  mkdirSync(dataDir, { mode: 0o700 });
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {};
  if (asRoot) chownSync(dataDir, owner.uid!, owner.gid!);
  const run = (program: string, args: string[]) => execFileSync(path.join(bin, program), args, { ...owner, stdio: 'ignore' });
  run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const options = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1`;
  const start = () => run('pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(dataDir, 'server.log'), '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  start();
  // pg_ctl's server outlives us: an interrupted run must not leave it behind.
  process.once('exit', () => {
    if (!existsSync(path.join(dataDir, 'postmaster.pid'))) return;
    try {
      run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    } catch (err) {
      console.error(`stopping the chaos run's Postgres failed: ${(err as Error).message}`);
    }
  });
  const admin = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE weft');
  await admin.end();
  const address = `postgres://postgres@127.0.0.1:${port}/weft`;
  await migrateDatabase(address);
  return {
    address,
    async crash(downMs) {
      const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      await untilGone(killWithChildren(postmaster));
      await pause(downMs);
      // The postmaster.pid left behind names a dead process: Postgres starts, recovering from its WAL.
      start();
    },
    stop: async () => {
      stop();
    },
  };
}

export async function startOwnTemporal(folder: string): Promise<CrashableService> {
  const options = { port: await freePort(), dbFile: path.join(folder, 'temporal.db'), logFile: path.join(folder, 'temporal.log') };
  const quiet = () => undefined;
  let server: RunningDevServer = await startDevServer(options, quiet);
  // An interrupted run must not leave the server behind.
  process.once('exit', () => server.process.kill('SIGKILL'));
  return {
    address: server.address,
    async crash(downMs) {
      await untilGone(killWithChildren(server.process.pid!));
      await pause(downMs);
      server = await startDevServer(options, quiet);
    },
    stop: () => server.stop(),
  };
}

/** A temporary folder for the run's data, removed by `remove()`. */
export function chaosFolder(): { path: string; remove(): void } {
  const folder = mkdtempSync(path.join(tmpdir(), 'weft-chaos-'));
  // Postgres runs as its own system user when we are root: it must reach its folder.
  chmodSync(folder, 0o755);
  return { path: folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
