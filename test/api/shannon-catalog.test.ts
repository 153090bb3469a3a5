import { startTestStack, type TestStack } from '../support/stack';
import { shannonCaller, type ShannonCaller } from '../support/shannon-http';

// Shannon's tools, agents and skills routes: what they list, and that running a tool or an agent,
// or naming a skill, is a Weft task that does what it says.

let stack: TestStack;
let http: ShannonCaller;
let admin: ShannonCaller;
beforeAll(async () => {
  stack = await startTestStack();
  http = shannonCaller(`http://127.0.0.1:${stack.api.httpPort}`, stack.apiKey);
  admin = shannonCaller(http.base, await stack.newApiKey({ tenantId: stack.principal.tenantId, userId: 'root', roles: ['admin'] }));
});
afterAll(() => stack.stop());

type Messages = Array<{ role: string; content: string }>;
const requestWith = (text: string) => stack.model.requests.find((r) => JSON.stringify(r.body.messages).includes(text));

describe('tools', () => {
  it('lists and describes tools with their parameters', async () => {
    const { body } = await http.call('GET', '/api/v1/tools');
    const calculator = (body.tools as Array<Record<string, unknown>>).find((t) => t.name === 'calculator');
    expect(calculator).toMatchObject({ category: expect.any(String), description: expect.any(String), parameters: { type: 'object' } });
    expect((await http.call('GET', '/api/v1/tools?category=files')).body.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['file_read', 'memory_write']),
    );
    expect(await http.call('GET', '/api/v1/tools/calculator')).toMatchObject({
      status: 200,
      body: { name: 'calculator', parameters: { required: ['expression'] } },
    });
    expect(await http.call('GET', '/api/v1/tools/no_such_tool')).toMatchObject({ status: 404 });
  });

  it("executes a tool as a task of its own, recorded like an agent's call", async () => {
    const executed = await http.call('POST', '/api/v1/tools/calculator/execute', { arguments: { expression: '6 * 7' } });
    expect(executed).toMatchObject({ status: 200, body: { success: true, error: null, metadata: { tool: 'calculator', status: 'COMPLETED' } } });
    expect(JSON.stringify(executed.body.output)).toContain('42');
    const task = await http.call('GET', `/api/v1/tasks/${executed.body.metadata.task_id}`);
    expect(task.body).toMatchObject({ status: 'TASK_STATUS_COMPLETED', mode: 'simple' });
    const events = await http.call('GET', `/api/v1/tasks/${executed.body.metadata.task_id}/events`);
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['TOOL_INVOKED', 'TOOL_OBSERVATION']));
  });

  it("refuses bad arguments, unknown fields and a non-admin's dangerous tool", async () => {
    expect(await http.call('POST', '/api/v1/tools/calculator/execute', { arguments: { expression: 7 } })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^arguments: .*expression/) },
    });
    expect(await http.call('POST', '/api/v1/tools/calculator/execute', { args: {} })).toMatchObject({ status: 400, body: { error: 'unknown field args' } });
    expect(await http.call('POST', '/api/v1/tools/calculator/execute', { arguments: [1] })).toMatchObject({
      status: 400,
      body: { error: 'arguments must be a JSON object' },
    });
    expect(await http.call('POST', '/api/v1/tools/file_write/execute', { arguments: { path: 'a.txt', content: 'x' } })).toMatchObject({
      status: 403,
      body: { error: expect.stringMatching(/dangerous tool/) },
    });
    expect(await http.call('POST', '/api/v1/tools/nope/execute', { arguments: {} })).toMatchObject({ status: 404 });
  });
});

describe('agents', () => {
  it('lists named agents and runs one as a task with only its tools', async () => {
    const { body } = await http.call('GET', '/api/v1/agents');
    expect(body.agents.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining(['arithmetic', 'summarizer']));
    expect(await http.call('GET', '/api/v1/agents/arithmetic')).toMatchObject({
      status: 200,
      body: { id: 'arithmetic', tool: 'calculator', input_schema: { required: ['expression'] } },
    });

    stack.model.on('Work out 24 * 365 with the calculator', { content: 'There are 8760 hours in a year.' });
    const run = await http.call('POST', '/api/v1/agents/arithmetic', { input: { expression: '24 * 365' } });
    expect(run).toMatchObject({ status: 202, body: { agent_id: 'arithmetic', status: 'QUEUED' } });
    expect(run.headers.get('x-workflow-id')).toBe(run.body.workflow_id);
    const finished = await http.waitForTask(run.body.task_id);
    expect(finished).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'There are 8760 hours in a year.' });
    const offered = (requestWith('Work out 24 * 365')!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(offered).toEqual(['calculator']);
  });

  it("refuses input that does not match the agent's schema, and unknown agents", async () => {
    expect(await http.call('POST', '/api/v1/agents/arithmetic', { input: {} })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^input: expression/) },
    });
    expect(await http.call('POST', '/api/v1/agents/arithmetic', { input: { expression: '1+1', extra: 1 } })).toMatchObject({ status: 400 });
    expect(await http.call('POST', '/api/v1/agents/arithmetic', { input: { expression: '1+1' }, colour: 'red' })).toMatchObject({
      status: 400,
      body: { error: 'unknown field colour' },
    });
    expect(await http.call('GET', '/api/v1/agents/nobody')).toMatchObject({ status: 404 });
    expect(await http.call('POST', '/api/v1/agents/nobody', { input: {} })).toMatchObject({ status: 404 });
  });
});

describe('skills', () => {
  it('lists skills, shows their instructions and versions', async () => {
    const { body } = await http.call('GET', '/api/v1/skills');
    expect(body.skills).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'code-review', version: '1.1.0', category: 'engineering' })]));
    const skill = await http.call('GET', '/api/v1/skills/code-review');
    expect(skill.body.skill).toMatchObject({
      name: 'code-review',
      version: '1.1.0',
      author: 'Weft',
      content: expect.stringContaining('You review code changes'),
    });
    expect((await http.call('GET', '/api/v1/skills/code-review/versions')).body.versions.map((v: { version: string }) => v.version)).toEqual([
      '1.1.0',
      '1.0.0',
    ]);
    expect(await http.call('GET', '/api/v1/skills/nothing')).toMatchObject({ status: 404 });
  });

  it("runs a task that names a skill with the skill's instructions as its agent's system prompt", async () => {
    const query = `review this diff #${Date.now()}`;
    stack.model.on(query, { content: 'looks fine' });
    const { body } = await http.call('POST', '/api/v1/tasks', { query, skill: 'code-review@1.0.0' });
    await http.waitForTask(body.task_id);
    const system = (requestWith(query)!.body.messages as Messages).find((m) => m.role === 'system')!;
    expect(system.content).toContain('You review code changes: say what the change does');
    expect(await http.call('POST', '/api/v1/tasks', { query: 'q', skill: 'code-review@9.9.9' })).toMatchObject({ status: 404 });
    expect(await http.call('POST', '/api/v1/tasks', { query: 'q', skill: 'code-review', mode: 'complex' })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^a skill runs with one agent/) },
    });
  });
});

describe('an admin running a dangerous tool', () => {
  it("writes the file under the same record as an agent's call", async () => {
    const written = await admin.call('POST', '/api/v1/tools/memory_write/execute', { arguments: { path: 'notes/plan.md', content: '# plan' } });
    expect(written).toMatchObject({ status: 200, body: { success: true } });
    expect((await admin.call('GET', '/api/v1/memory/files/notes/plan.md')).body).toMatchObject({ content: '# plan', content_type: 'text/markdown' });
  });
});
