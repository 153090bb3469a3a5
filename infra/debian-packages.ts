import { execFileSync } from 'node:child_process';
import { onPath } from './go-tools';

// Programs Weft takes from Debian's packages: bubblewrap (bwrap) for the Python sandbox, and for
// the tests Chromium (the Web UI test drives it headless). Installed when missing and this is a
// root shell with apt-get (CI, fresh machines); otherwise the exact command is printed.

interface DebianProgram {
  command: string;
  packageName: string;
  why: string;
}

export const bubblewrap: DebianProgram = { command: 'bwrap', packageName: 'bubblewrap', why: 'for the Python sandbox' };
export const chromium: DebianProgram = { command: 'chromium', packageName: 'chromium', why: "for the tests' headless browser" };

/** The program's path; installs its package when it can. Throws, saying what to install, when it cannot. */
export function ensureDebianProgram(program: DebianProgram, log: (line: string) => void = console.log): string {
  const found = onPath(program.command);
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
  return onPath(program.command) ?? program.command;
}
