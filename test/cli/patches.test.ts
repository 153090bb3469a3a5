import { patchStandings } from '../../cli/patch-report';
import { Patches } from '../../workflows/patches';
import { submitTask, waitForFinish } from '../support/grpc';
import { pendingApprovalOf, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { runWeft } from '../support/weft-cli';

// `weft patches` against the real dev server: every registered patch, and whether an open
// workflow started before it shipped could still take its old path.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

it('lists every registered patch with its new path and whether it may be deprecated', () => {
  const run = runWeft('patches', '--output', 'json');
  expect(run.code).toBe(0);
  const listed = (JSON.parse(run.output) as { patches: Array<{ id: string; newPath: string; deprecatable: boolean }> }).patches;
  expect(listed.map((p) => p.id).sort()).toEqual(
    Object.values(Patches)
      .map((p) => p.id)
      .sort(),
  );
  expect(listed.every((p) => typeof p.deprecatable === 'boolean' && p.newPath !== '')).toBe(true);
});

it('keeps a patch while a workflow started before it is open, and not one that shipped before every open workflow', async () => {
  stack.model.on('wait before the patch', { content: 'never asked' });
  const waiting = await submitTask(stack.orchestrator, { query: 'wait before the patch', require_approval: true });
  await pendingApprovalOf(stack.orchestrator, waiting.task_id);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const shipsTomorrow = { ...Patches.rememberResults, id: 'ships-tomorrow', added: tomorrow };
  const shippedLongAgo = { ...Patches.rememberResults, id: 'shipped-long-ago', added: '2000-01-01' };
  // Visibility follows a moment behind the start.
  const standings = await until(async () => {
    const found = await patchStandings(stack.temporal, [shipsTomorrow, shippedLongAgo]);
    return found[0]!.openFromBefore > 0 ? found : undefined;
  });
  expect(standings[0]).toMatchObject({ id: 'ships-tomorrow', deprecatable: false });
  expect(standings[1]).toMatchObject({ id: 'shipped-long-ago', openFromBefore: 0, deprecatable: true });
  await stack.temporal.workflow.getHandle(waiting.workflow_id).cancel();
  await waitForFinish(stack.orchestrator, waiting.task_id);
});
