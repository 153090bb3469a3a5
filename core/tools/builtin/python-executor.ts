import type { PythonSandbox } from '../python/python-sandbox';
import { ToolError, toolMetadata, type ToolDefinition } from '../tool';
import { workspaceDataFiles, workspaceDirOf } from './workspace';
import { inFlightCap } from '../../tenancy/in-flight';

// Runs a Python program in the sandbox (core/tools/python) and returns what it printed. A program
// that raises is an execution error carrying its traceback and whatever it printed before.

const maxCodeChars = 100_000;
const maxErrorChars = 4_000;

export interface PythonExecutorOptions {
  memoryMb: number;
  timeoutMs: number;
  /** The session workspaces, whose files a program reads under /data. */
  workspaceRoot: string;
  /** The most bytes of workspace files a program is given. */
  dataLimitBytes: number;
  /** Programs one tenant may run at once in this process (0: no cap), so a burst leaves room for others. */
  programsPerTenant: number;
}

export function pythonExecutorTool(sandbox: PythonSandbox, limits: PythonExecutorOptions): ToolDefinition {
  const perTenant = inFlightCap(limits.programsPerTenant);
  return {
    ...toolMetadata({
      name: 'python_executor',
      version: '1.0.0',
      description:
        "Runs a Python 3 program (standard library only) in an isolated sandbox with no network, and returns its stdout and stderr. Print what you want to see. The session workspace's files are readable under /data; anything the program writes is discarded when it ends.",
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
      const { files, omitted } = await workspaceDataFiles(workspaceDirOf(limits.workspaceRoot, context), limits.dataLimitBytes);
      const run = { timeoutMs: limits.timeoutMs - 100, memoryMb, files, ...(context.signal ? { signal: context.signal } : {}) };
      const release = perTenant.tryAcquire(context.tenantId);
      if (!release)
        throw new ToolError(
          'execution',
          `your tenant already runs ${limits.programsPerTenant} Python program(s) at once here, its limit; run this one after one finishes`,
        );
      const result = await sandbox.run(String(args.code), run).finally(release);
      if (result.error) {
        const printed = result.stdout ? `\nIt printed before:\n${result.stdout}` : '';
        throw new ToolError('execution', `${result.error.slice(-maxErrorChars)}${printed.slice(0, maxErrorChars)}`);
      }
      return omitted.length > 0 ? { ...result, data_omitted: omitted } : result;
    },
  };
}
