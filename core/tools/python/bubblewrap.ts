import { execFileSync, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';

// The container each Python program runs in, built by bubblewrap (bwrap): new user, pid, ipc, uts,
// cgroup and network namespaces, an unprivileged uid, no capabilities, a new session, and a root
// that holds only the interpreter's files, read-only: the Node binary and the libraries it loads,
// pyodide and the runner. /tmp is the program's scratch space (a tmpfs, thrown away with the
// process). The host's /proc, /run,
// /var, /tmp, /home, /sys and every socket simply do not exist inside. (The program's allowed data
// files reach it through its own message, not a mount: a waiting interpreter has no task yet.)

const runnerFile = path.join(__dirname, 'sandbox-runner.cjs');
const pyodideDir = path.dirname(require.resolve('pyodide/package.json'));

/** Where things are inside the sandbox. */
export const inside = {
  node: '/sandbox/node',
  pyodide: '/sandbox/pyodide',
  runner: '/sandbox/runner.cjs',
  snapshot: '/sandbox/pyodide.snap',
  scratch: '/tmp',
} as const;

/** The shared libraries the Node binary loads, by the paths the loader looks them up at. */
function sharedLibraries(binary: string): string[] {
  const listing = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...listing.matchAll(/(\/[^\s]+)/g)].map((match) => match[1]!);
}

let interpreterBinds: string[] | undefined;

/** --ro-bind pairs for the interpreter's files, computed once. */
function interpreterMounts(): string[] {
  interpreterBinds ??= [
    ['--ro-bind', process.execPath, inside.node],
    ['--ro-bind', pyodideDir, inside.pyodide],
    ['--ro-bind', runnerFile, inside.runner],
    ...sharedLibraries(process.execPath).map((library) => ['--ro-bind', realpathSync(library), library]),
  ].flat();
  return interpreterBinds;
}

const nobody = '65534';

/** bwrap's arguments up to the command it runs: the namespaces, the identity and the root (with more read-only files, host path to inside path). */
export function sandboxArguments(readOnly: ReadonlyArray<readonly [string, string]> = []): string[] {
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--uid',
    nobody,
    '--gid',
    nobody,
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--dev',
    '/dev',
    '--tmpfs',
    inside.scratch,
    '--chdir',
    inside.scratch,
    ...interpreterMounts(),
    ...readOnly.flatMap(([host, path]) => ['--ro-bind', host, path]),
  ];
}

/** Why a sandbox cannot be created here (bwrap missing, or user namespaces refused), or undefined. */
export function sandboxProblem(): string | undefined {
  let args: string[];
  try {
    args = sandboxArguments();
  } catch (err) {
    return `the interpreter's libraries could not be listed (${err instanceof Error ? err.message : String(err)})`;
  }
  const probe = spawnSync('bwrap', [...args, inside.node, '--version'], { encoding: 'utf8', timeout: 10_000, env: {} });
  if (probe.error) return `bwrap could not be run (${probe.error.message}); install bubblewrap (apt-get install bubblewrap)`;
  return probe.status === 0 ? undefined : `bwrap failed: ${probe.stderr.trim() || `exit code ${probe.status}`}`;
}
