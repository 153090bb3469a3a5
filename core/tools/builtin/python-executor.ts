import type { PythonSandbox } from '../python/python-sandbox';
import { ToolError, toolMetadata, type ToolDefinition } from '../tool';

// Runs a Python program in the sandbox (core/tools/python) and returns what it printed. A program
// that raises is an execution error carrying its traceback and whatever it printed before.

const maxCodeChars = 100_000;
const maxErrorChars = 4_000;

export function pythonExecutorTool(sandbox: PythonSandbox, limits: { memoryMb: number; timeoutMs: number }): ToolDefinition {
  return {
    ...toolMetadata({
      name: 'python_executor',
      version: '1.0.0',
      description:
        'Runs a Python 3 program (standard library only) in an isolated sandbox with no network and no file access, and returns its stdout and stderr. Print what you want to see.',
      category: 'code',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', minLength: 1, maxLength: maxCodeChars, description: 'the Python program' } },
        required: ['code'],
        additionalProperties: false,
      },
      timeoutMs: limits.timeoutMs,
      memoryLimitMb: limits.memoryMb,
      rateLimitPerMinute: 60,
      sandboxed: true,
    }),
    async execute(args, context) {
      // The registry's own timeout stops waiting; the sandbox's kills the process a moment before.
      const memoryMb = Math.min(limits.memoryMb, context.memoryLimitMb ?? limits.memoryMb);
      const result = await sandbox.run(String(args.code), { timeoutMs: limits.timeoutMs - 100, memoryMb, ...(context.signal ? { signal: context.signal } : {}) });
      if (result.error) {
        const printed = result.stdout ? `\nIt printed before:\n${result.stdout}` : '';
        throw new ToolError('execution', `${result.error.slice(-maxErrorChars)}${printed.slice(0, maxErrorChars)}`);
      }
      return result;
    },
  };
}
