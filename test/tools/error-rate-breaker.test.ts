import { loadConfig } from '../../core/config';
import { createToolRegistry } from '../../core/tools/registry';
import { ToolError, toolMetadata } from '../../core/tools/tool';

// The seed's ENFORCE_CB_* breaker: a tool failing at more than the threshold rate, over at least
// the minimum of calls in the window, is not called until its recovery time has passed.

const context = { tenantId: 't', userId: 'u', roles: [], sessionId: '', taskId: 'x' };

it("takes the seed's settings and defaults", () => {
  expect(loadConfig({}).toolErrorRate).toEqual({ threshold: 0.5, windowMs: 30_000, minRequests: 20, recoveryMs: 60_000 });
  expect(
    loadConfig({ ENFORCE_CB_ERROR_THRESHOLD: '0.25', ENFORCE_CB_WINDOW_SECONDS: '10', ENFORCE_CB_MIN_REQUESTS: '5', MCP_CB_RECOVERY_SECONDS: '2' })
      .toolErrorRate,
  ).toEqual({ threshold: 0.25, windowMs: 10_000, minRequests: 5, recoveryMs: 2_000 });
  expect(() => loadConfig({ ENFORCE_CB_ERROR_THRESHOLD: '1.5' })).toThrow('ENFORCE_CB_ERROR_THRESHOLD');
});

it("opens a tool's circuit when most of enough calls fail, counts no refusal, and closes after a good probe", async () => {
  let healthy = true;
  let calls = 0;
  const flaky = {
    ...toolMetadata({
      name: 'flaky',
      version: '1.0.0',
      description: 'sometimes down',
      category: 'test',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
    }),
    execute: async () => {
      calls += 1;
      if (!healthy) throw new ToolError('network', 'down');
      return 'up';
    },
  };
  const registry = createToolRegistry([flaky], { errorRate: { threshold: 0.5, windowMs: 2_000, minRequests: 4, recoveryMs: 300 } });
  const call = (args: object = {}) => registry.execute('flaky', args, context);

  // Refused calls (bad arguments) never ran: they are not the tool's failures.
  for (let i = 0; i < 10; i += 1) expect((await call({ n: 'x' })).ok).toBe(false);
  expect(calls).toBe(0);

  expect((await call()).ok).toBe(true);
  healthy = false;
  // Below the minimum of calls, failures alone do not open it.
  for (let i = 0; i < 2; i += 1) expect(await call()).toMatchObject({ ok: false, error: { category: 'network' } });
  expect(await call()).toMatchObject({ ok: false, error: { category: 'network' } });
  expect(calls).toBe(4);
  // Three of four failed (75 % > 50 %): the circuit is open and the tool is not called.
  expect(await call()).toMatchObject({ ok: false, error: { category: 'circuit_open', message: expect.stringContaining('flaky is failing') } });
  expect(calls).toBe(4);

  await new Promise((resolve) => setTimeout(resolve, 350));
  healthy = true;
  expect(await call()).toEqual({ ok: true, content: 'up' });
  expect(await call()).toEqual({ ok: true, content: 'up' });
  expect(calls).toBe(6);
});
