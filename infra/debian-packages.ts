import { execFileSync, spawnSync } from 'node:child_process';
import { onPath } from './go-tools';

// Programs Weft takes from Debian's packages: for the Python sandbox bubblewrap (bwrap), and
// Debian's CPython with libseccomp's Python bindings (python3-seccomp, which brings python3 along);
// for the tests Chromium (the Web UI test drives it headless). Installed when missing and this is a
// root shell with apt-get (CI, fresh machines); otherwise the exact command is printed.

interface DebianProgram {
  command: string;
  packageName: string;
  why: string;
  /** Whether the package is there, when finding the command is not enough to tell. */
  installed?: () => boolean;
}

export const bubblewrap: DebianProgram = { command: 'bwrap', packageName: 'bubblewrap', why: 'for the Python sandbox' };
export const pythonSeccomp: DebianProgram = {
  command: '/usr/bin/python3',
  packageName: 'python3-seccomp',
  why: 'for the Python sandbox',
  installed: () => spawnSync('/usr/bin/python3', ['-I', '-c', 'import seccomp']).status === 0,
};
export const chromium: DebianProgram = { command: 'chromium', packageName: 'chromium', why: "for the tests' headless browser" };

/** The program's path; installs its package when it can. Throws, saying what to install, when it cannot. */
export function ensureDebianProgram(program: DebianProgram, log: (line: string) => void = console.log): string {
  const found = program.installed ? (program.installed() ? program.command : undefined) : onPath(program.command);
  if (found) return found;
  const install = ['install', '-y', '--no-install-recommends', program.packageName];
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    throw new Error(`${program.command} is needed ${program.why} and is not installed; install it with: sudo apt-get ${install.join(' ')}`);
  }
  log(`installing ${program.packageName} ${program.why} (once)...`);
  const quiet = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  try {
    execFileSync('apt-get', install, quiet);
  } catch {
    // A fresh machine may not have its package lists yet.
    execFileSync('apt-get', ['update'], quiet);
    execFileSync('apt-get', install, quiet);
  }
  return program.installed ? program.command : (onPath(program.command) ?? program.command);
}
