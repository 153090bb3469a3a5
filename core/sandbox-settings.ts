import { z } from 'zod';

// The Python sandbox's settings (read with the rest in core/config.ts): each program's memory, time, output
// and data, the interpreters kept waiting, and each tenant's share of a worker's programs.

export const sandboxEnvSchema = z.object({
  WEFT_SANDBOX_MEMORY_MB: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .describe("The Python sandbox's memory cap per program, in MB (default 512); the program's process tree is killed past it."),
  WASI_MEMORY_LIMIT_MB: z.coerce.number().int().positive().optional().describe("Shannon's name for WEFT_SANDBOX_MEMORY_MB (Weft's wins when both are set)."),
  WEFT_SANDBOX_TIMEOUT_MS: z.coerce.number().int().positive().optional().describe("A Python program's wall-clock limit, in milliseconds (default 60000)."),
  WASI_TIMEOUT_SECONDS: z.coerce
    .number()
    .positive()
    .optional()
    .describe("Shannon's name for the Python program timeout, in seconds (WEFT_SANDBOX_TIMEOUT_MS wins when both are set)."),
  WEFT_SANDBOX_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024)
    .describe("Bytes of a Python program's stdout and stderr kept."),
  WEFT_SANDBOX_POOL_SIZE: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(2)
    .describe('Python sandboxes each worker keeps started and waiting (about 8 MB each); each runs exactly one program.'),
  WEFT_TENANT_SANDBOX_PROGRAMS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(2)
    .describe('Python programs one tenant may run at once on one worker (0: unlimited).'),
  WEFT_SANDBOX_DATA_BYTES: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(8 * 1024 * 1024)
    .describe("The most bytes of the session workspace's files a Python program can read under `/data`."),
});
