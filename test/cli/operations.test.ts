import net from 'node:net';
import { submitTask, waitForFinish } from '../support/grpc';
import { pendingApprovalOf, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { startWeft, startWeftOnTerminal, weft } from '../support/weft-cli';

// The operator's CLI against the real stack: every command in its own process, as a person runs it.

let stack: TestStack;
let env: Record<string, string>;
beforeAll(async () => {
  stack = await startTestStack();
  env = { WEFT_API_ADDRESS: `127.0.0.1:${stack.api.port}`, WEFT_API_KEY: stack.apiKey };
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

it('submit --approval --watch on a terminal shows the approval id and the command that decides it; that command completes the task', async () => {
  const query = unique('approve from the terminal');
  stack.model.on(query, { content: 'decided at the terminal' });
  // A colour terminal: under CI=true Node takes every terminal for a two-colour one unless told.
  const watcher = startWeftOnTerminal(['submit', query, '--approval', '--no-decompose', '--watch'], { ...env, FORCE_COLOR: '1' });
  const approveLine = await until(() => /approve: +(.+)\n/.exec(watcher.output())?.[1], 60_000);
  expect(watcher.raw()).toContain('\u001b['); // coloured: it is a terminal
  const approvalId = /approval needed: (\S+)/.exec(watcher.output())![1]!;
  expect(approveLine).toBe(`weft approve '${approvalId}'`);
  expect(watcher.output()).toContain('reason:   the request requires approval');
  expect(watcher.output()).toContain(`proposed: {"mode":"STANDARD","query":"${query}"}`);

  // The printed command, run as printed (the shell's quotes taken off).
  const decided = await weft(
    approveLine
      .split(' ')
      .slice(1)
      .map((part) => part.replace(/^'|'$/g, '')),
    env,
  );
  expect(decided).toMatchObject({ code: 0, stdout: 'approval sent; the task continues\n' });

  const watched = await watcher.exited;
  expect(watched.code).toBe(0);
  expect(watched.output).toMatch(/APPROVAL_DECISION +approved by tester/);
  expect(watched.output).toMatch(/WORKFLOW_COMPLETED/);
  expect(watched.output).toContain('result    decided at the terminal');
  // Text for a person, without colours, when stdout is not a terminal.
  const plain = await weft(['status', /submitted (task-[\w-]+)/.exec(watched.output)![1]!], env);
  expect(plain.stdout).not.toContain('\u001b[');
  expect(plain.stdout).toMatch(/^task {6}task-/);
});

it('lists tasks with filters, as text and as JSON', async () => {
  const query = unique('list me');
  stack.model.on(query, { content: 'listed' });
  const done = await submitTask(stack.orchestrator, { query, metadata: { user_id: 'lister', session_id: '', task_id: '' } });
  await waitForFinish(stack.orchestrator, done.task_id);
  const waiting = await submitTask(stack.orchestrator, {
    query: unique('wait for me'),
    require_approval: true,
    metadata: { user_id: 'lister', session_id: '', task_id: '' },
  });
  await pendingApprovalOf(stack.orchestrator, waiting.task_id);

  const all = JSON.parse((await weft(['--output', 'json', 'list', '--user', 'lister'], env)).stdout) as {
    tasks: Array<{ task_id: string; status: string; mode: string }>;
    total_count: number;
  };
  expect(all.tasks.map((t) => t.task_id)).toEqual([waiting.task_id, done.task_id]);
  expect(all.total_count).toBe(2);
  const completed = JSON.parse(
    (await weft(['--output', 'json', 'list', '--user', 'lister', '--status', 'completed', '--mode', 'standard'], env)).stdout,
  ) as typeof all;
  expect(completed.tasks.map((t) => t.task_id)).toEqual([done.task_id]);
  const awaiting = JSON.parse((await weft(['--output', 'json', 'list', '--user', 'lister', '--awaiting-approval'], env)).stdout) as typeof all;
  expect(awaiting.tasks.map((t) => t.task_id)).toEqual([waiting.task_id]);

  const text = await weft(['list', '--user', 'lister'], env);
  expect(text.stdout).toMatch(new RegExp(`${done.task_id}  COMPLETED  STANDARD .*${query}`));
  expect(text.stdout).toContain('2 of 2 tasks');
  const bad = await weft(['list', '--status', 'sleeping'], env);
  expect(bad).toMatchObject({ code: 1, stderr: 'weft: --status must be one of QUEUED, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, not "sleeping"\n' });
  await weft(['cancel', waiting.task_id], env);
});

it('lists approvals and rejects one with feedback; cancels a task with a reason', async () => {
  const waiting = await submitTask(stack.orchestrator, { query: unique('reject me'), require_approval: true });
  const pending = await pendingApprovalOf(stack.orchestrator, waiting.task_id);
  const listed = JSON.parse((await weft(['--output', 'json', 'approvals'], env)).stdout) as Array<{ approval_id: string; metadata: { task_id: string } }>;
  expect(listed.find((a) => a.approval_id === pending.approval_id)?.metadata.task_id).toBe(waiting.task_id);

  expect(await weft(['reject', pending.approval_id, '--feedback', 'not today'], env)).toMatchObject({
    code: 0,
    stdout: 'rejection sent; the task will be cancelled\n',
  });
  expect(await waitForFinish(stack.orchestrator, waiting.task_id)).toMatchObject({ status: 'TASK_STATUS_CANCELLED' });
  const again = await weft(['approve', pending.approval_id], env);
  expect(again).toMatchObject({ code: 1, stderr: `weft: approval ${pending.approval_id} is already rejected (gRPC status 9)\n` });

  const running = await submitTask(stack.orchestrator, { query: unique('cancel me'), require_approval: true });
  await pendingApprovalOf(stack.orchestrator, running.task_id);
  const cancelled = JSON.parse((await weft(['--output', 'json', 'cancel', running.task_id, '--reason', 'changed my mind'], env)).stdout) as {
    success: boolean;
  };
  expect(cancelled.success).toBe(true);
  expect(await waitForFinish(stack.orchestrator, running.task_id)).toMatchObject({
    status: 'TASK_STATUS_CANCELLED',
    error_message: 'cancelled: changed my mind',
  });
});

it('watch resumes after the connection drops, showing every event once', async () => {
  // A proxy in front of the API whose connections the test cuts, as a network blip or a load balancer would.
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(stack.api.port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxied = { ...env, WEFT_API_ADDRESS: `127.0.0.1:${(proxy.address() as net.AddressInfo).port}` };
  try {
    const waiting = await submitTask(stack.orchestrator, { query: unique('watch through a blip'), require_approval: true });
    const pending = await pendingApprovalOf(stack.orchestrator, waiting.task_id);
    const watcher = startWeft(['--output', 'json', 'watch', waiting.task_id], proxied);
    await until(() => watcher.run.stdout.includes('APPROVAL_REQUESTED'));
    for (const socket of sockets) socket.destroy();
    await until(() => watcher.run.stderr.includes('connection lost'));
    stack.model.on(pending.query, { content: 'after the blip' });
    await weft(['approve', pending.approval_id], env);
    const watched = await watcher.exited;
    expect(watched.code).toBe(0);
    const events = watched.stdout.trim().split('\n').slice(0, -1).join('\n');
    const updates = events
      .split('\n')
      .filter((line) => line.startsWith('{"workflow_id"'))
      .map((line) => JSON.parse(line) as { seq: string; type: string });
    expect(updates.map((u) => Number(u.seq))).toEqual(updates.map((_, i) => i + 1));
    expect(updates.map((u) => u.type)).toEqual([
      'WORKFLOW_STARTED',
      'APPROVAL_REQUESTED',
      'APPROVAL_DECISION',
      'AGENT_STARTED',
      'AGENT_COMPLETED',
      'WORKFLOW_COMPLETED',
    ]);
  } finally {
    for (const socket of sockets) socket.destroy();
    proxy.close();
  }
});

it('reports one token count: the status, the list and the workflow result agree, routing included', async () => {
  const query = unique('count my tokens');
  stack.model.on((text) => text.includes('Classify the task') && text.includes(query), {
    content:
      '{"recommended_mode":"STANDARD","complexity_score":0.3,"required_capabilities":[],"estimated_agents":1,"estimated_tokens":100,"estimated_cost_usd":0,"reasoning":"one answer"}',
  });
  stack.model.on(query, { content: 'counted' });
  const submitted = JSON.parse((await weft(['--output', 'json', 'submit', query], env)).stdout) as { task_id: string; workflow_id: string };
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  const result = await stack.temporal.workflow.getHandle(submitted.workflow_id).result();
  const routing = stack.model.requests.filter((r) => JSON.stringify(r.body).includes('Classify the task') && JSON.stringify(r.body).includes(query));
  expect(routing).toHaveLength(1);
  expect(result.tokens).toBe(Number(status.metrics!.token_usage!.total_tokens));
  const answerOnly = stack.model.requests.filter((r) => JSON.stringify(r.body).includes(query)).length;
  expect(answerOnly).toBe(2);
  const listed = JSON.parse((await weft(['--output', 'json', 'list'], env)).stdout) as {
    tasks: Array<{ task_id: string; total_token_usage: { total_tokens: number } }>;
  };
  expect(listed.tasks.find((t) => t.task_id === submitted.task_id)!.total_token_usage.total_tokens).toBe(result.tokens);
  const text = await weft(['status', submitted.task_id], env);
  expect(text.stdout).toContain(`tokens    ${result.tokens} (`);
});

it('manages keys: list, rotate and revoke, as JSON', async () => {
  const tenantId = unique('key-tenant').replace(/\W+/g, '-');
  const created = JSON.parse((await weft(['--output', 'json', 'keys', 'create', '--tenant', tenantId, '--user', 'kim'], env)).stdout) as { key: string };
  const listed = JSON.parse((await weft(['--output', 'json', 'keys', 'list', '--tenant', tenantId], env)).stdout) as Array<{ keyId: string; userId: string }>;
  expect(listed).toEqual([expect.objectContaining({ userId: 'kim' })]);
  expect(created.key).toContain(listed[0]!.keyId);
  const rotated = JSON.parse((await weft(['--output', 'json', 'keys', 'rotate', listed[0]!.keyId], env)).stdout) as { key: string };
  expect(rotated.key).not.toBe(created.key);
  const newId = (
    JSON.parse((await weft(['--output', 'json', 'keys', 'list', '--tenant', tenantId], env)).stdout) as Array<{ keyId: string; revokedAt?: string }>
  ).find((k) => !k.revokedAt)!.keyId;
  expect(await weft(['keys', 'revoke', newId], env)).toMatchObject({ code: 0, stdout: `revoked ${newId}\n` });
  const after = JSON.parse((await weft(['--output', 'json', 'keys', 'list', '--tenant', tenantId], env)).stdout) as Array<{ revokedAt?: string }>;
  expect(after.every((k) => k.revokedAt)).toBe(true);
  const refused = await weft(['list'], { ...env, WEFT_API_KEY: rotated.key });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('(gRPC status 16)');
});

itLeavesEveryTaskVerified(() => stack.everyTask());
