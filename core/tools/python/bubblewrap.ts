import { execFileSync, spawnSync, type SpawnOptions } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The container each Python program runs in, built by bubblewrap (bwrap): new user, pid, ipc, uts,
// cgroup, mount and network namespaces (so no network at all: not even loopback is up), an
// unprivileged uid, no capabilities, no further user namespaces, a new session, the interpreter as
// the namespace's pid 1 (when it ends, the kernel ends everything it started), its own /proc (only
// its own processes), and a root that holds only the interpreter, its standard library and the
// libraries they load, read-only. /tmp and /data are its own size-capped tmpfs mounts, thrown away
// with it; /dev holds only the standard device nodes, read-only. The host's /etc, /home, /run, /var,
// /sys, its /tmp and every socket simply do not exist inside.
//
// bwrap itself runs as nobody when the worker runs as root: the sandbox's uid maps to the uid that
// started bwrap, and a sandbox whose uid is the host's root passes the kernel's uid-0 checks that
// ignore capabilities and namespaces (writing /proc/sys, such as kernel.core_pattern, which runs a
// command as root on the host). Started by nobody, it is nobody on the host too.

/** The interpreter: Debian's CPython, never whatever python3 is first on PATH. */
export const python = '/usr/bin/python3';

/** Where things are inside the sandbox. */
export const inside = { runnerDir: '/sandbox', runner: '/sandbox/runner.py', scratch: '/tmp', data: '/data' } as const;

const runnerFiles = { 'runner.py': 'sandbox_runner.py', 'sandbox_seccomp.py': 'sandbox_seccomp.py' };

interface Interpreter {
  binary: string;
  stdlib: string;
  /** libseccomp's Python bindings (python3-seccomp), bound beside the runner. */
  seccompModule: string;
  libraries: string[];
}

/** Asks the interpreter where its parts are. Throws when it or python3-seccomp is missing. */
function findInterpreter(): Interpreter {
  const script = [
    'import glob, json, os, sys, sysconfig, seccomp',
    'stdlib = sysconfig.get_paths()["stdlib"]',
    'print(json.dumps({"binary": os.path.realpath(sys.executable), "stdlib": stdlib, "seccompModule": seccomp.__file__,',
    '  "extensions": glob.glob(os.path.join(stdlib, "lib-dynload", "*.so"))}))',
  ].join('\n');
  const found = JSON.parse(execFileSync(python, ['-I', '-c', script], { encoding: 'utf8', env: {} })) as Omit<Interpreter, 'libraries'> & {
    extensions: string[];
  };
  return { ...found, libraries: sharedLibraries([found.binary, found.seccompModule, ...found.extensions]) };
}

/** The shared libraries ELF objects load, by the paths the loader looks them up at (one ldd for all: each run is time). */
function sharedLibraries(objects: string[]): string[] {
  const listing = execFileSync('ldd', objects, { encoding: 'utf8' });
  return [...new Set([...listing.matchAll(/(\/[^\s]+) \(0x/g)].map((match) => match[1]!))];
}

/**
 * Mounts for the directories that hold the libraries, read-only: whole directories (one mount
 * each, not one per library: each mount is time at every start), and the host's top-level
 * symlinks such as /lib -> usr/lib, so the loader's paths resolve inside as they do outside.
 */
function libraryMounts(libraries: string[]): string[][] {
  const directories = new Set<string>();
  const links = new Map<string, string>();
  for (const library of libraries) {
    for (const file of [library, realpathSync(library)]) directories.add(realpathSync(path.dirname(file)));
    const top = `/${library.split('/')[1]}`;
    if (lstatSync(top).isSymbolicLink()) links.set(top, readlinkSync(top));
  }
  return [
    ...[...directories].sort().map((directory) => ['--ro-bind', directory, directory]),
    ...[...links].map(([link, target]) => ['--symlink', target, link]),
  ];
}

/** How bwrap is started: as nobody when the worker is root (see above), from a directory nobody can enter. */
export const launchOptions: SpawnOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534, cwd: '/' } : {};

/**
 * The runner's files, copied to a directory every user may read: bwrap, started as nobody, binds
 * them, and the worker's own checkout may be closed to other users. Removed when the worker exits.
 */
function stagedRunnerFiles(): string[][] {
  const dir = mkdtempSync(path.join(tmpdir(), 'weft-sandbox-runner-'));
  chmodSync(dir, 0o755);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return Object.entries(runnerFiles).map(([name, source]) => {
    const staged = path.join(dir, name);
    copyFileSync(path.join(__dirname, source), staged);
    chmodSync(staged, 0o644);
    return ['--ro-bind', staged, `${inside.runnerDir}/${name}`];
  });
}

let mounts: string[] | undefined;

/** --ro-bind pairs for the interpreter's files, computed once. */
function interpreterMounts(): string[] {
  if (mounts) return mounts;
  const interpreter = findInterpreter();
  const runnerSources = stagedRunnerFiles();
  // The zone database, for zoneinfo, where the host has one.
  const zones =
    existsSync('/usr/share/zoneinfo') && readdirSync('/usr/share/zoneinfo').length > 0 ? [['--ro-bind', '/usr/share/zoneinfo', '/usr/share/zoneinfo']] : [];
  mounts = [
    ['--ro-bind', interpreter.binary, python],
    ['--ro-bind', interpreter.stdlib, interpreter.stdlib],
    ...libraryMounts(interpreter.libraries),
    ...runnerSources,
    ['--ro-bind', interpreter.seccompModule, `${inside.runnerDir}/${path.basename(interpreter.seccompModule)}`],
    ...zones,
  ].flat();
  return mounts;
}

const nobody = '65534';

/** bwrap's arguments up to the command it runs: a sandbox whose /tmp and /data hold at most fileSpaceMb each. */
export function sandboxArguments(fileSpaceMb: number): string[] {
  const size = String(fileSpaceMb * 1024 * 1024);
  return [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--as-pid-1',
    '--uid',
    nobody,
    '--gid',
    nobody,
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--dev',
    '/dev',
    // bwrap's /dev is a tmpfs of its own, which the root's remount below does not reach.
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
    '--size',
    size,
    '--tmpfs',
    inside.scratch,
    '--size',
    size,
    '--tmpfs',
    inside.data,
    '--chdir',
    inside.scratch,
    ...interpreterMounts(),
    '--remount-ro',
    '/',
  ];
}

/**
 * The runner, inside: isolated (no environment, no user site, no current directory on the path),
 * no site (so no installed packages: the standard library only), no bytecode written.
 */
export const runnerCommand = [python, '-I', '-S', '-B', inside.runner];

/** Why a sandbox cannot be created here (bwrap, Python or python3-seccomp missing, or user namespaces refused), or undefined. */
export function sandboxProblem(): string | undefined {
  let container: string[];
  try {
    container = sandboxArguments(1);
  } catch (err) {
    return `Debian's python3 with python3-seccomp is needed (apt-get install python3 python3-seccomp): ${err instanceof Error ? err.message : String(err)}`;
  }
  const probe = spawnSync('bwrap', [...container, python, '-I', '-S', '-c', 'pass'], { ...launchOptions, encoding: 'utf8', timeout: 10_000, env: {} });
  if (probe.error) return `bwrap could not be run (${probe.error.message}); install bubblewrap (apt-get install bubblewrap)`;
  return probe.status === 0 ? undefined : `bwrap failed: ${probe.stderr.trim() || `exit code ${probe.status}`}`;
}
