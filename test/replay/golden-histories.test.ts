import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { explainMismatch, explanationLines } from '../../cli/replay-explanation';
import { bundleOfHistory, recordedBy } from './frozen-builds';

// Golden histories recorded from real runs (test/histories, `npm run capture-histories`) must
// replay, without a server, against the workflow code of the build that recorded them: a frozen
// build's (frozen-builds.ts) or the current code's. A failure on a history of the current code
// means a change would break workflows this build has running: ship it as a new build, freezing
// this one (freeze-build.ts) for its histories.

const historiesDir = path.join(__dirname, '../histories');
const manifest = JSON.parse(readFileSync(path.join(historiesDir, 'manifest.json'), 'utf8')) as Record<string, string>;
const goldenFiles = readdirSync(historiesDir).filter((file) => file.endsWith('.json') && file !== 'manifest.json');

function loadHistory(file: string) {
  return historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')));
}

it('has a golden history for every workflow path', () => {
  const paths = [
    'simple',
    'standard',
    'complex-dag',
    'complex-dag.agent-join',
    'approve',
    'approve-modified',
    'reject',
    'timeout',
    'cancel',
    'budget-exceeded',
    'failure',
    'continue-as-new.run-1',
    'continue-as-new.run-2',
    'outcome-review',
    'unrecordable-end',
    'ignored-decision',
    'reset-decision.run-1',
    'reset-decision.run-2',
    'reset-run.run-1',
    'reset-run.run-2',
    'reset-agent-wait.run-1',
    'reset-agent-wait.run-2',
    'cancel-dag',
    'first-step-start',
    'cancel-before-first-step',
    'steered',
    'remembered',
    'headers-first-step-start',
    'headers-cancel-before-first-step',
    'headers-reset-run.run-1',
    'headers-reset-run.run-2',
    'scheduled',
    'plan-review',
    'cut-off',
    'eval',
    // Recorded by the code that asks no patch (the builds after wf-b6a073d114728b97).
    'unpatched-cancel-before-first-step',
    'unpatched-cancel-dag',
    'unpatched-cut-off',
    'unpatched-eval',
    'unpatched-first-step-start',
    'unpatched-ignored-decision',
    'unpatched-outcome-review',
    'unpatched-plan-review',
    'unpatched-remembered',
    'unpatched-reset-agent-wait.run-1',
    'unpatched-reset-agent-wait.run-2',
    'unpatched-reset-run.run-1',
    'unpatched-reset-run.run-2',
    'unpatched-scheduled',
    'unpatched-steered',
    'unpatched-unrecordable-end',
  ];
  expect(goldenFiles.map((file) => path.basename(file, '.json')).sort()).toEqual(paths.sort());
});

it.each(goldenFiles)('replays %s against the workflow code of the build that recorded it', async (file) => {
  const codePath = bundleOfHistory(file, process.env.WEFT_TEST_WORKFLOW_BUNDLE!);
  await Worker.runReplayHistory({ workflowBundle: { codePath } }, loadHistory(file), manifest[file]);
});

it('names a recorded golden history for every history a frozen build recorded', () => {
  expect(Object.keys(recordedBy).filter((file) => !goldenFiles.includes(file))).toEqual([]);
});

it('detects a workflow whose code no longer matches its history', async () => {
  const replay = Worker.runReplayHistory({ workflowsPath: require.resolve('./drifted-workflows') }, loadHistory('standard.json'));
  await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
  // `weft replay` says which event the changed code disagreed with, and what to do.
  const error = (await replay.catch((err: unknown) => err)) as Error;
  const explanation = explainMismatch(loadHistory('standard.json'), error.message);
  expect(explanation).toMatchObject({ eventId: 5, eventType: 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES', recorded: 'UpsertWorkflowSearchAttributes' });
  expect(explanationLines(explanation).join('\n')).toContain(
    'at event 5 (UPSERT_WORKFLOW_SEARCH_ATTRIBUTES): the history recorded UpsertWorkflowSearchAttributes',
  );
});
