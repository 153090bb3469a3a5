import { execFileSync } from 'node:child_process';
import { onPath } from './go-tools';

// The Python sandbox needs bubblewrap (bwrap). Installed from Debian's packages when missing and
// this is a root shell with apt-get (CI, fresh machines); otherwise the exact command is printed.

const installCommand = 'apt-get install -y bubblewrap';

/** bwrap's path; installs it when it can. Throws, saying what to install, when it cannot. */
export function ensureBubblewrap(log: (line: string) => void = console.log): string {
  const found = onPath('bwrap');
  if (found) return found;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    throw new Error(`bwrap (bubblewrap) is needed for the Python sandbox and is not installed; install it with: sudo ${installCommand}`);
  }
  log('installing bubblewrap for the Python sandbox (once)...');
  const quiet = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'bubblewrap'], quiet);
  } catch {
    // A fresh machine may not have its package lists yet.
    execFileSync('apt-get', ['update'], quiet);
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'bubblewrap'], quiet);
  }
  return onPath('bwrap') ?? 'bwrap';
}
