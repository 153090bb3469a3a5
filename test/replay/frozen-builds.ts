import { readFileSync } from 'node:fs';
import path from 'node:path';

// Golden histories replay against the workflow code of the build that recorded them: a running
// task stays on the build that started it (workers/worker-version.ts), so a change ships as a new
// build and never has to replay another build's histories. The builds that recorded golden
// histories before the current code are frozen here (freeze-build.ts); history-builds.json names,
// per golden history, the frozen build that recorded it, and a history it does not name was
// recorded by the current code.

export const frozenBuildsDir = path.join(__dirname, 'builds');

/** Golden history file -> the frozen build that recorded it. */
export const recordedBy = JSON.parse(readFileSync(path.join(__dirname, 'history-builds.json'), 'utf8')) as Record<string, string>;

/** The file of a frozen build's workflow bundle. */
export const frozenBundleOf = (buildId: string) => path.join(frozenBuildsDir, `${buildId}.js`);

/** The workflow bundle a golden history replays on: its frozen build's, or the current code's. */
export function bundleOfHistory(file: string, currentBundle: string): string {
  const buildId = recordedBy[file];
  return buildId ? frozenBundleOf(buildId) : currentBundle;
}
