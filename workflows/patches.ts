// Every patch the workflow code ever took, in one place, and the build that retired it. A patch let
// a workflow started on an older build replay its old path while new workflows took the new one;
// its marker names it in the histories of workflows started while it was live. Workers are
// versioned by default (workers/worker-version.ts): a task stays on the build that started it, so a
// change of workflow code ships as a new build, never as a branch on `patched`, and none is live: the
// workflow code takes every new path below unconditionally, and records no marker. Histories of
// the builds that still had them replay against those builds, frozen under test/replay/builds; a
// deployment running with versioning off drains those tasks before upgrading
// (docs/internals/replay-and-versions.md).
// test/replay/patch-registry.test.ts holds this list against the golden histories and the code.

export interface Patch {
  /** The marker's id in histories: never changed once shipped. */
  id: string;
  /** What a workflow took when the patch applied; one that started before it took the old path. */
  newPath: string;
  /** When the new path shipped: workflows started before then may take the old path. */
  added: string;
  /** When nothing that may take the old path is open any more (`npm run weft -- patches` counts what is). */
  deprecateWhen: string;
  /** A newer patch that implied this one: a workflow of its time recorded only that one's marker, and took this path with it. */
  impliedBy?: string;
  /** The last build whose code asked `patched` for it: every later build takes the new path without asking. Its histories replay against it (frozen under test/replay/builds). */
  lastPatchedIn: string;
}

/** The usual condition: nothing started before the patch shipped still runs (`npm run weft -- patches` counts them). */
const noneOpenFrom = (added: string) => `no task or agent workflow started before ${added} is open`;

/** The build whose workflow code was the last to ask `patched`, for every patch below. */
const lastPatchedBuild = 'wf-b6a073d114728b97';

const patch = (fields: Omit<Patch, 'deprecateWhen' | 'lastPatchedIn'> & { deprecateWhen?: string }): Patch => ({
  deprecateWhen: noneOpenFrom(fields.added),
  lastPatchedIn: lastPatchedBuild,
  ...fields,
});

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
