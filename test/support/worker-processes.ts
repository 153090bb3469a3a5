import { spawn } from 'node:child_process';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');

/** A Weft worker in its own process (worker-process.ts), for tests that kill it; `exited` gives the signal that ended it. */
export function startWorkerProcess(taskQueue: string, modelBaseURL: string, env: Record<string, string> = {}) {
  // node --import tsx, not the tsx wrapper: the SIGKILL must hit the process we watch.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/worker-process.ts'], {
    cwd: repoRoot,
    env: { ...process.env, WEFT_TASK_QUEUE: taskQueue, WEFT_LLM_BASE_URL: modelBaseURL, ...env },
    stdio: 'inherit',
  });
  return { child, exited: new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal))) };
}
