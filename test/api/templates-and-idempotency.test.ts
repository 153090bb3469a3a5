import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { jsonToStruct } from '../../api/grpc/struct';
import { unaryCall } from '../../protos/clients';
import { grpcError } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const templatesDir = path.join(__dirname, '..', '..', 'templates');

it('ListTemplates lists the template files with their keys and content hashes', async () => {
  const { templates } = await unaryCall(stack.orchestrator, 'ListTemplates', {});
  const analysis = templates.find((t) => t.name === 'data_analysis');
  expect(analysis).toEqual({
    name: 'data_analysis',
    version: '1.0.0',
    key: 'data_analysis@1.0.0',
    content_hash: createHash('sha256')
      .update(readFileSync(path.join(templatesDir, 'data-analysis.yaml')))
      .digest('hex'),
  });
  expect(templates.map((t) => t.name)).toContain('research_report');
});

it("SubmitTask runs a named template's plan, and refuses unknown or conflicting ones", async () => {
  const submitted = await unaryCall(stack.orchestrator, 'SubmitTask', {
    query: 'what is 17% of 2,340?',
    context: jsonToStruct({ template: 'data_analysis', template_version: '1.0.0' }),
  });
  expect(submitted.decomposition).toMatchObject({
    mode: 'EXECUTION_MODE_COMPLEX',
    agent_tasks: [
      { agent_id: 'analyst', required_tools: ['calculator'], model_tier: 'MODEL_TIER_SMALL' },
      { agent_id: 'explainer', dependencies: ['analyst'], model_tier: 'MODEL_TIER_MEDIUM' },
    ],
  });
  await unaryCall(stack.orchestrator, 'CancelTask', { task_id: submitted.task_id, reason: 'test done' });

  const unknown = await grpcError(unaryCall(stack.orchestrator, 'SubmitTask', { query: 'q', context: jsonToStruct({ template: 'nope' }) }));
  expect([unknown.code, unknown.details]).toEqual([GrpcStatus.NOT_FOUND, 'template nope not found (see ListTemplates)']);
  const wrongVersion = await grpcError(
    unaryCall(stack.orchestrator, 'SubmitTask', { query: 'q', context: jsonToStruct({ template: 'data_analysis', template_version: '9.9.9' }) }),
  );
  expect(wrongVersion.code).toBe(GrpcStatus.NOT_FOUND);
  const both = await grpcError(
    unaryCall(stack.orchestrator, 'SubmitTask', {
      query: 'q',
      context: jsonToStruct({ template: 'data_analysis' }),
      manual_decomposition: { agent_tasks: [{ agent_id: 'a', description: 'do it' }] },
    }),
  );
  expect(both.code).toBe(GrpcStatus.INVALID_ARGUMENT);
});

it('an idempotency-key header makes a retried SubmitTask return the same workflow, per tenant', async () => {
  const withKey = (key: string) => {
    const metadata = new Metadata();
    metadata.set('idempotency-key', key);
    return { metadata };
  };
  const key = `order-${Date.now()}`;
  stack.model.on('idempotent question', { content: 'once' });
  const first = await unaryCall(stack.orchestrator, 'SubmitTask', { query: 'idempotent question' }, withKey(key));
  const again = await unaryCall(stack.orchestrator, 'SubmitTask', { query: 'idempotent question' }, withKey(key));
  expect(again).toMatchObject({ task_id: first.task_id, workflow_id: first.workflow_id, message: 'task already submitted; returning the existing workflow' });
  // A key reused for another request names a different task: refused with the reason.
  expect((await grpcError(unaryCall(stack.orchestrator, 'SubmitTask', { query: 'another question' }, withKey(key)))).code).toBe(GrpcStatus.ALREADY_EXISTS);
  expect((await grpcError(unaryCall(stack.orchestrator, 'SubmitTask', { query: 'idempotent question', require_approval: true }, withKey(key)))).code).toBe(
    GrpcStatus.ALREADY_EXISTS,
  );
  const other = await stack.clientFor({ tenantId: `other-${Date.now()}`, userId: 'eve', roles: [] });
  const theirs = await unaryCall(other, 'SubmitTask', { query: 'idempotent question' }, withKey(key));
  expect(theirs.task_id).not.toBe(first.task_id);
  expect((await grpcError(unaryCall(stack.orchestrator, 'SubmitTask', { query: 'q' }, withKey('x'.repeat(300))))).code).toBe(GrpcStatus.INVALID_ARGUMENT);
});
