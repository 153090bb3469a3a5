import { patched } from '@temporalio/workflow';

// Every patch of the workflow code, in one place. A patch lets a workflow started on an older build
// replay its old path while new workflows take the new one; its marker names it in the history.
// Its stages (Temporal's patching-api): `patched(id)` while workflows that took the old path may
// still be open; `deprecatePatch(id)` once none is (the new path only, the marker still written);
// then the patch is removed once no open workflow has its marker either. With worker versioning
// (the default, workers/worker-version.ts) a workflow change ships as a new build instead, and no
// new patch is needed: a running task stays on the build that started it.
// test/replay/patch-registry.test.ts holds this list against the golden histories and the code.

export interface Patch {
  /** The marker's id in histories: never changed once shipped. */
  id: string;
  /** What a workflow takes when the patch applies; one that started before it takes the old path. */
  newPath: string;
  /** When the new path shipped: workflows started before then may take the old path. */
  added: string;
  /** When `patched` may become `deprecatePatch`, the old path and its golden histories going with it. */
  deprecateWhen: string;
  /** A newer patch that implies this one: a new workflow records only that one's marker, and takes this path with it. */
  impliedBy?: string;
}

/** The usual condition: nothing started before the patch shipped still runs (`npm run weft -- patches` counts them). */
const noneOpenFrom = (added: string) => `no task or agent workflow started before ${added} is open`;

const patch = (fields: Omit<Patch, 'deprecateWhen'> & { deprecateWhen?: string }): Patch => ({ deprecateWhen: noneOpenFrom(fields.added), ...fields });

export const Patches = {
  unrecordableEndFailsTask: patch({
    id: 'unrecordable-end-fails-task',
    newPath: 'an end the store cannot record is replaced by a failure naming why, so the store never keeps a finished task RUNNING',
    added: '2026-11-30',
  }),
  toolOutcomeReview: patch({
    id: 'tool-outcome-review',
    newPath: 'a tool call whose outcome is unknown (its worker died mid-call) waits for a person to say what became of it',
    added: '2026-11-30',
  }),
  visibleIgnoredDecisions: patch({
    id: 'visible-ignored-approval-decisions',
    newPath: 'an approval decision that cannot apply is recorded and shown on the task stream, not only logged',
    added: '2026-11-30',
  }),
  recordedDecisions: patch({
    id: 'recorded-approval-decisions',
    newPath: 'a decision the store already holds (a Temporal reset to before it) decides again without waiting for a person',
    added: '2026-11-30',
  }),
  resetStartsNewRun: patch({
    id: 'reset-starts-a-new-store-run',
    newPath: 'a Temporal reset writes a new store run of the task, handed over by its first activity',
    added: '2026-12-01',
    impliedBy: 'first-model-step-starts-the-task',
  }),
  waitForAgentId: patch({
    id: 'agent-waits-for-its-workflow-id',
    newPath: "an agent whose child workflow id is still taken by an earlier run's agent waits for it instead of failing",
    added: '2026-12-01',
  }),
  firstStepStartsTask: patch({
    id: 'first-model-step-starts-the-task',
    newPath:
      'a task that goes straight to its agent has its start recorded by its first activity (its run context); the workflow keeps the mode the API started it with',
    added: '2026-12-02',
  }),
  cancelledTaskWaitsForAgents: patch({
    id: 'cancelled-task-waits-for-every-agent',
    newPath: 'a cancelled COMPLEX task ends once every running agent has ended',
    added: '2026-12-02',
  }),
  rememberResults: patch({
    id: 'remember-task-results',
    newPath: "with user memory on, a completed task's answer goes to one small-model step, and a note worth keeping to the user's memory",
    added: '2026-12-02',
  }),
} as const satisfies Record<string, Patch>;

/** Whether this workflow takes the patch's new path: its marker, or the marker of the newer patch that implies it. */
export function takesNewPath(given: Patch): boolean {
  return (given.impliedBy !== undefined && patched(given.impliedBy)) || patched(given.id);
}
