import { dataTableTool } from '../../core/tools/builtin/data-table';
import { createToolRegistry } from '../../core/tools/registry';

const registry = createToolRegistry([dataTableTool]);
const run = (args: Record<string, unknown>) => registry.execute('data_table', args, { tenantId: 't', userId: 'u', roles: [], sessionId: '', taskId: 'x' });
const csv = 'region,quarter,sales\nnorth,Q1,120\nsouth,Q1,80\nnorth,Q2,150.5\nwest,Q2,\n';

it('summarises CSV and JSON, filters, sorts and limits rows', async () => {
  expect(await run({ data: csv, format: 'csv' })).toEqual({
    ok: true,
    content: {
      columns: ['region', 'quarter', 'sales'],
      row_count: 4,
      matched_count: 4,
      summary: { sales: { count: 3, min: 80, max: 150.5, mean: 350.5 / 3, sum: 350.5 } },
      rows: [
        { region: 'north', quarter: 'Q1', sales: 120 },
        { region: 'south', quarter: 'Q1', sales: 80 },
        { region: 'north', quarter: 'Q2', sales: 150.5 },
        { region: 'west', quarter: 'Q2', sales: '' },
      ],
    },
  });
  const north = await run({ data: csv, format: 'csv', filter: { column: 'region', op: 'eq', value: 'north' }, sort_by: 'sales', descending: true, limit: 1 });
  expect(north).toMatchObject({ ok: true, content: { matched_count: 2, summary: { sales: { sum: 270.5 } }, rows: [{ quarter: 'Q2', sales: 150.5 }] } });
  const json = JSON.stringify([
    { name: 'a', score: 3 },
    { name: 'b', score: 9 },
  ]);
  expect(await run({ data: json, format: 'json', filter: { column: 'score', op: 'gt', value: 5 } })).toMatchObject({
    ok: true,
    content: { matched_count: 1, rows: [{ name: 'b' }] },
  });
});

it('says what is wrong with bad data or arguments', async () => {
  expect(await run({ data: '{"a": 1}', format: 'json' })).toEqual({
    ok: false,
    error: { category: 'validation', message: 'data: not valid JSON: JSON data must be an array of objects' },
  });
  expect(await run({ data: 'a,b\n1,2,3\n', format: 'csv' })).toMatchObject({
    ok: false,
    error: { category: 'validation', message: expect.stringMatching(/^data: not valid CSV: /) },
  });
  expect(await run({ data: csv, format: 'csv', sort_by: 'revenue' })).toEqual({
    ok: false,
    error: { category: 'validation', message: 'sort_by: no column named revenue' },
  });
  expect(await run({ data: csv, format: 'xml' })).toMatchObject({ ok: false, error: { category: 'validation', message: expect.stringContaining('format') } });
});
