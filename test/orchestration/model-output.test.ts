import { readModelVerdict } from '../../core/orchestration/complexity';
import { readModelPlan } from '../../core/orchestration/plan';

// Reading plans and verdicts as models write them, without a model: what is forgiven, what is not.

const tools = ['calculator', 'web_search'];

describe('a model plan', () => {
  it('is clean when bare or fenced and exactly as asked', () => {
    const plan = '{"agents":[{"id":"a","description":"do a","tier":"SMALL"}]}';
    expect(readModelPlan(plan, tools).reading).toEqual({ outcome: 'clean', notes: [] });
    expect(readModelPlan('```json\n' + plan + '\n```', tools).reading).toEqual({ outcome: 'clean', notes: [] });
  });

  it('is found in prose past braces inside strings and objects that are not JSON', () => {
    const text = 'Thinking {not json} first. The plan: {"agents":[{"id":"a","description":"use {braces} and \\"quotes\\""}]} done.';
    const read = readModelPlan(text, tools);
    expect(read).toMatchObject({ ok: true, plan: { agents: [{ id: 'a', description: 'use {braces} and "quotes"' }] }, reading: { outcome: 'lenient' } });
  });

  it('takes a bare list of agents, a dependency as a string and a tool as a string', () => {
    const read = readModelPlan('[{"ID":"a","Description":"x"},{"id":"b","description":"y","dependencies":"a","tools":"calculator"}]', tools);
    expect(read).toMatchObject({ ok: true, plan: { agents: [{ id: 'a' }, { id: 'b', dependencies: ['a'], tools: ['calculator'] }] } });
    expect(read.reading.notes).toEqual(expect.arrayContaining(['read a list of agents as {"agents": [...]}', 'read agents[0].ID as id']));
  });

  it('still refuses what leniency cannot mend, with errors for the repair round', () => {
    expect(readModelPlan('{"agents":[{"id":"a","description":"x","tools":["teleporter"]}]}', tools)).toMatchObject({
      ok: false,
      errors: ['agent a uses unknown tool teleporter'],
      reading: { outcome: 'failed' },
    });
    expect(readModelPlan('no plan here', tools)).toMatchObject({ ok: false, reading: { outcome: 'failed' } });
  });
});

describe('a model verdict', () => {
  const verdict = { complexity_score: 0.4, required_capabilities: [], estimated_agents: 1, estimated_tokens: 10, estimated_cost_usd: 0, reasoning: 'r' };
  it('reads synonyms and lower-case modes leniently, and fails on a missing field', () => {
    expect(readModelVerdict(JSON.stringify({ ...verdict, recommended_mode: 'STANDARD' })).reading.outcome).toBe('clean');
    const lenient = readModelVerdict(`Verdict: ${JSON.stringify({ ...verdict, mode: 'standard', extra: 1 })}`);
    expect(lenient.verdict?.recommended_mode).toBe('STANDARD');
    expect(lenient.reading.notes).toEqual(
      expect.arrayContaining(['read mode as recommended_mode', 'read recommended_mode "standard" as STANDARD', 'dropped unknown key extra']),
    );
    expect(readModelVerdict(JSON.stringify({ recommended_mode: 'STANDARD' })).reading.outcome).toBe('failed');
  });
});
