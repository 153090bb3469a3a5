#!/usr/bin/env -S npx tsx
// The `weft` command: talk to a running Weft API, and operate its deployment (`npm run weft -- --help`).
import { existsSync, readFileSync } from 'node:fs';
import type { ServiceError } from '@grpc/grpc-js';
import { Command, Option } from 'commander';
import { devApiKeyFile } from '../infra/dev-api-key';
import type { CliContext } from './cli-context';
import { addApprovalCommands } from './commands/approval-commands';
import { addDebugCommands } from './commands/debug-commands';
import { addEvalCommands } from './commands/eval-commands';
import { addKeyCommands } from './commands/key-commands';
import { addTaskCommands } from './commands/task-commands';
import { addSteeringCommands } from './commands/steering-commands';
import { addScheduleCommands } from './commands/schedule-commands';
import { createOutput, type OutputFormat } from './output';

const program = new Command('weft').description('Weft: durable AI-agent orchestration on Temporal');
program.option('--api <address>', 'Weft gRPC API address', process.env.WEFT_API_ADDRESS ?? '127.0.0.1:50052');
program.addOption(new Option('--output <format>', 'how data is printed').choices(['text', 'json']).default('text'));

/** WEFT_API_KEY, or the development key `make up` wrote. */
function apiKey(): string | undefined {
  if (process.env.WEFT_API_KEY) return process.env.WEFT_API_KEY;
  return existsSync(devApiKeyFile) ? readFileSync(devApiKeyFile, 'utf8').trim() : undefined;
}

const globals = () => program.opts<{ api: string; output: OutputFormat }>();
const ctx: CliContext = {
  api: () => {
    const key = apiKey();
    return { address: globals().api, ...(key ? { apiKey: key } : {}) };
  },
  // Colours on a terminal that takes them (Node reads NO_COLOR, FORCE_COLOR, TERM and CI for that).
  output: () => createOutput(globals().output, Boolean(process.stdout.isTTY) && process.stdout.hasColors()),
  // Run through `npm run weft`, the suggestions say so too.
  selfCommand: process.env.npm_lifecycle_event === 'weft' ? 'npm run weft --' : 'weft',
};

addTaskCommands(program, ctx);
addSteeringCommands(program, ctx);
addScheduleCommands(program, ctx);
addApprovalCommands(program, ctx);
addKeyCommands(program, ctx);
addDebugCommands(program, ctx);
addEvalCommands(program, ctx);

program.parseAsync().catch((err: ServiceError | Error) => {
  const code = 'code' in err && typeof err.code === 'number' ? ` (gRPC status ${err.code})` : '';
  console.error(`weft: ${'details' in err && err.details ? err.details : err.message}${code}`);
  process.exit(1);
});
