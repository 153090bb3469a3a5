import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { startAuthenticator, type Authenticator } from '../../api/tasks/auth';
import { ephemeralListen, startApiServer, type ApiServer } from '../../api/server';
import { createApiKey } from '../../core/auth/api-keys';
import { createOrchestratorClient, createStreamingClient, unaryCall } from '../../protos/clients';
import { grpcError } from '../support/grpc';
import { runWeft } from '../support/weft-cli';

/** `weft keys ...`, its output trimmed. */
function weft(...args: string[]) {
  const run = runWeft('keys', ...args);
  return { code: run.code, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
}
import { pendingApprovalOf, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';

// Keys as an operator manages them: `weft keys revoke` takes effect at once in every API process
// (each caches verified keys) and ends the key's open streams; keys expire; rotation hands over.

let stack: TestStack;
let secondAuth: Authenticator;
let secondApi: ApiServer;
beforeAll(async () => {
  stack = await startTestStack();
  // A second API process's view: its own authenticator, cache and LISTEN connection.
  secondAuth = await startAuthenticator({ pool: stack.pool, databaseUrl: process.env.DATABASE_URL!, enabled: true });
  secondApi = await startApiServer({ ...stack.apiDeps, auth: secondAuth }, ephemeralListen());
});
afterAll(async () => {
  await secondApi.shutdown();
  await secondAuth.close();
  await stack.stop();
});

const keyIdOf = (key: string) => key.split('_')[1]!;
const principal = () => ({ tenantId: stack.principal.tenantId, userId: `key-user-${Math.random().toString(36).slice(2, 8)}`, roles: ['approver' as const] });

/** Whether each API process accepts the key on a unary call. */
async function acceptedBy(key: string): Promise<boolean[]> {
  return Promise.all(
    [stack.api.port, secondApi.port].map(async (port) => {
      const client = createOrchestratorClient(`127.0.0.1:${port}`, { apiKey: key });
      try {
        await unaryCall(client, 'ListTasks', {});
        return true;
      } catch (err) {
        if ((err as ServiceError).code !== GrpcStatus.UNAUTHENTICATED) throw err;
        return false;
      } finally {
        client.close();
      }
    }),
  );
}

it('a revoked key is refused at once by every API process, and its open stream ends UNAUTHENTICATED', async () => {
  const key = await createApiKey(stack.pool, principal());
  expect(await acceptedBy(key)).toEqual([true, true]);
  // A task that waits for approval, so its event stream stays open.
  const orchestrator = createOrchestratorClient(`127.0.0.1:${stack.api.port}`, { apiKey: key });
  stack.model.on('revoked key stream', { content: 'never delivered' });
  const task = await unaryCall(orchestrator, 'SubmitTask', { query: 'revoked key stream', require_approval: true });
  await pendingApprovalOf(orchestrator, task.task_id);
  // One stream open on each API process. The key has no expiry, so nothing but the revocation's
  // notification reaching that process makes its stream end: the ends are each process's receipt.
  const streamings = [stack.api.port, secondApi.port].map((port) => createStreamingClient(`127.0.0.1:${port}`, { apiKey: key }));
  const opened = await Promise.all(
    streamings.map(async (streaming) => {
      const stream = streaming.StreamTaskExecution({ workflow_id: task.workflow_id });
      const ended = new Promise<ServiceError>((resolve, reject) => {
        stream.on('data', () => undefined);
        stream.on('error', resolve);
        stream.on('end', () => reject(new Error('the stream ended as if complete')));
      });
      await new Promise((resolve) => stream.once('metadata', resolve));
      return { ended }; // wrapped, or the async function would wait for the end itself
    }),
  );

  expect(weft('revoke', keyIdOf(key))).toMatchObject({ code: 0, stdout: `revoked ${keyIdOf(key)}` });
  const streamErrors = await Promise.all(opened.map((stream) => stream.ended));
  expect(streamErrors.map((err) => [err.code, err.details])).toEqual([
    [GrpcStatus.UNAUTHENTICATED, 'API key revoked or expired'],
    [GrpcStatus.UNAUTHENTICATED, 'API key revoked or expired'],
  ]);
  // The notification drops the key from a process's verified-key cache before its streams are
  // re-checked, so both refuse it now, although the cache would otherwise have kept it for 30 s.
  expect(await acceptedBy(key)).toEqual([false, false]);
  const refused = await grpcError(unaryCall(orchestrator, 'GetTaskStatus', { task_id: task.task_id }));
  expect(refused.details).toBe('invalid, expired or revoked API key');
  expect(weft('revoke', keyIdOf(key))).toMatchObject({ code: 1, stderr: `weft: API key ${keyIdOf(key)} not found (or already revoked)` });
  orchestrator.close();
  for (const streaming of streamings) streaming.close();
});

it('an expiring key works until its expiry and is refused after, cache or not', async () => {
  const key = await createApiKey(stack.pool, principal(), { expiresAt: new Date(Date.now() + 2_000) });
  expect(await acceptedBy(key)).toEqual([true, true]);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  expect(await acceptedBy(key)).toEqual([false, false]);
});

it('rotates a key: the new one works, the old one through its grace period only, and list shows both', async () => {
  const who = principal();
  const old = await createApiKey(stack.pool, who);
  expect(await acceptedBy(old)).toEqual([true, true]);
  const graceful = weft('rotate', keyIdOf(old), '--grace-seconds', '60');
  expect(graceful.code).toBe(0);
  const replacement = graceful.stdout;
  expect(replacement).toMatch(/^weft_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  expect(await acceptedBy(old)).toEqual([true, true]);
  expect(await acceptedBy(replacement)).toEqual([true, true]);

  const final = weft('rotate', keyIdOf(replacement));
  expect(final.code).toBe(0);
  await until(async () => ((await acceptedBy(replacement)).every((accepted) => !accepted) ? true : undefined), 5_000);
  expect(await acceptedBy(final.stdout)).toEqual([true, true]);

  const listed = weft('list', '--tenant', who.tenantId)
    .stdout.split('\n')
    .filter((line) => line.includes(who.userId));
  expect(listed).toHaveLength(3);
  expect(listed[0]).toMatch(new RegExp(`^${keyIdOf(old)}\\t${who.tenantId}\\t${who.userId}\\tapprover\\texpires `));
  expect(listed[1]).toMatch(new RegExp(`^${keyIdOf(replacement)}\\t.*\\trevoked `));
  expect(listed[2]).toBe(`${keyIdOf(final.stdout)}\t${who.tenantId}\t${who.userId}\tapprover\tactive`);
  // The secret is everything after the key id: base64url, so it may hold (or begin with) '_' itself.
  const secret = final.stdout.slice(`weft_${keyIdOf(final.stdout)}_`.length);
  expect(secret).toHaveLength(43);
  expect(listed.join('\n')).not.toContain(secret);
});
