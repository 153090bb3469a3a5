import path from 'node:path';
import { submitTask, waitForFinish } from '../support/grpc';
import { runWeft as weft } from '../support/weft-cli';
import { startTestStack, type TestStack } from '../support/stack';

const repoRoot = path.resolve(__dirname, '../..');
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());


describe('weft replay', () => {
  it('replays a live workflow against the current code and says it matches', async () => {
    stack.model.on('replay me live', { content: 'live answer' });
    const submitted = await submitTask(stack.orchestrator, { query: 'replay me live' });
    await waitForFinish(stack.orchestrator, submitted.task_id);
    const result = weft('replay', submitted.workflow_id, '--temporal', process.env.TEMPORAL_ADDRESS!);
    expect(result.output).toContain(`OK: ${submitted.workflow_id}`);
    expect(result.code).toBe(0);
  });

  it('replays an exported history file, and says clearly when the code no longer matches', () => {
    const file = path.join(repoRoot, 'test/histories/complex-dag.json');
    const matching = weft('replay', '--file', file, 'golden-complex-dag');
    expect(matching.code).toBe(0);
    expect(matching.output).toContain('OK: golden-complex-dag (');
    // Under another id the child workflows it starts differ from the recorded ones.
    const mismatching = weft('replay', '--file', file, 'another-id');
    expect(mismatching.code).toBe(1);
    expect(mismatching.output).toContain('MISMATCH: another-id');
  });
});
