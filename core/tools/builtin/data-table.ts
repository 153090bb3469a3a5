import { parse as parseCsv } from 'csv-parse/sync';
import { ToolError, toolMetadata, type ToolDefinition } from '../tool';

// Tabular data an agent was given or fetched, CSV (csv-parse) or a JSON array of objects: its
// columns and size, numeric summaries, and the rows matching a filter, sorted and limited.

type Row = Record<string, unknown>;
const operators = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'] as const;
type Operator = (typeof operators)[number];

function rowsOf(data: string, format: 'csv' | 'json'): Row[] {
  try {
    if (format === 'csv') return parseCsv(data, { columns: true, cast: true, skip_empty_lines: true, trim: true }) as Row[];
    const parsed: unknown = JSON.parse(data);
    if (!Array.isArray(parsed) || !parsed.every((row) => row && typeof row === 'object' && !Array.isArray(row))) {
      throw new Error('JSON data must be an array of objects');
    }
    return parsed as Row[];
  } catch (err) {
    throw new ToolError('validation', `data: not valid ${format.toUpperCase()}: ${(err as Error).message}`);
  }
}

function matches(value: unknown, op: Operator, wanted: unknown): boolean {
  if (op === 'contains')
    return String(value ?? '')
      .toLowerCase()
      .includes(String(wanted).toLowerCase());
  if (op === 'eq') return value === wanted || String(value) === String(wanted);
  if (op === 'ne') return !(value === wanted || String(value) === String(wanted));
  const [a, b] = [Number(value), Number(wanted)];
  if (Number.isNaN(a) || Number.isNaN(b)) return false;
  return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : a <= b;
}

function summaries(rows: Row[], columns: string[]) {
  const result: Record<string, { count: number; min: number; max: number; mean: number; sum: number }> = {};
  for (const column of columns) {
    const numbers = rows.map((row) => row[column]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    if (numbers.length === 0) continue;
    const sum = numbers.reduce((a, b) => a + b, 0);
    result[column] = { count: numbers.length, min: Math.min(...numbers), max: Math.max(...numbers), mean: sum / numbers.length, sum };
  }
  return result;
}

export const dataTableTool: ToolDefinition = {
  ...toolMetadata({
    name: 'data_table',
    version: '1.0.0',
    description:
      'Parses CSV or JSON (an array of objects) and returns its columns, row count, per-column numeric summaries (count, min, max, mean, sum) and rows, optionally filtered, sorted and limited.',
    category: 'data',
    parameters: {
      type: 'object',
      properties: {
        data: { type: 'string', minLength: 1, maxLength: 1024 * 1024, description: 'the CSV (with a header row) or JSON text' },
        format: { type: 'string', enum: ['csv', 'json'] },
        filter: {
          type: 'object',
          properties: {
            column: { type: 'string', minLength: 1 },
            op: { type: 'string', enum: [...operators] },
            value: { type: ['string', 'number', 'boolean'] },
          },
          required: ['column', 'op', 'value'],
          additionalProperties: false,
        },
        sort_by: { type: 'string', minLength: 1 },
        descending: { type: 'boolean' },
        limit: { type: 'integer', minimum: 0, maximum: 200, description: 'rows to return (default 20)' },
      },
      required: ['data', 'format'],
      additionalProperties: false,
    },
    timeoutMs: 10_000,
    rateLimitPerMinute: 600,
  }),
  async execute(args) {
    const rows = rowsOf(String(args.data), args.format as 'csv' | 'json');
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const filter = args.filter as { column: string; op: Operator; value: unknown } | undefined;
    if (filter && !columns.includes(filter.column)) throw new ToolError('validation', `filter.column: no column named ${filter.column}`);
    const sortBy = args.sort_by as string | undefined;
    if (sortBy && !columns.includes(sortBy)) throw new ToolError('validation', `sort_by: no column named ${sortBy}`);
    let matched = filter ? rows.filter((row) => matches(row[filter.column], filter.op, filter.value)) : rows;
    if (sortBy) {
      const direction = args.descending ? -1 : 1;
      matched = [...matched].sort((a, b) => {
        const [x, y] = [a[sortBy], b[sortBy]];
        const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x ?? '').localeCompare(String(y ?? ''));
        return order * direction;
      });
    }
    return {
      columns,
      row_count: rows.length,
      matched_count: matched.length,
      summary: summaries(matched, columns),
      rows: matched.slice(0, (args.limit as number | undefined) ?? 20),
    };
  },
};
