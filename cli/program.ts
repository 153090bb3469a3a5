import { Command, Option } from 'commander';
import type { CliContext } from './cli-context';
import { addApprovalCommands } from './commands/approval-commands';
import { addDebugCommands } from './commands/debug-commands';
import { addEvalCommands } from './commands/eval-commands';
import { addKeyCommands } from './commands/key-commands';
import { addTaskCommands } from './commands/task-commands';
import { addSteeringCommands } from './commands/steering-commands';
import { addScheduleCommands } from './commands/schedule-commands';
import { createOutput, type OutputFormat } from './output';

// The `weft` command's tree, apart from running it (cli/weft.ts) so that docs/reference/cli.md is generated from it.

/** What the command takes from its environment (cli/weft.ts reads it). */
export interface CliEnvironment {
  /** WEFT_API_ADDRESS: the --api default. */
  apiAddress?: string;
  /** The key to send, read when a command calls the API. */
  apiKey: () => string | undefined;
  /** How the user runs the command, so its suggestions say the same (`npm run weft --` in a checkout). */
  selfCommand: string;
}

export function weftProgram(environment: CliEnvironment): Command {
  const program = new Command('weft').description('Weft: durable AI-agent orchestration on Temporal');
  program.option('--api <address>', 'Weft gRPC API address', environment.apiAddress ?? '127.0.0.1:50052');
  program.addOption(new Option('--output <format>', 'how data is printed').choices(['text', 'json']).default('text'));

  const globals = () => program.opts<{ api: string; output: OutputFormat }>();
  const ctx: CliContext = {
    api: () => {
      const key = environment.apiKey();
      return { address: globals().api, ...(key ? { apiKey: key } : {}) };
    },
    // Colours on a terminal that takes them (Node reads NO_COLOR, FORCE_COLOR, TERM and CI for that).
    output: () => createOutput(globals().output, Boolean(process.stdout.isTTY) && process.stdout.hasColors()),
    selfCommand: environment.selfCommand,
  };

  addTaskCommands(program, ctx);
  addSteeringCommands(program, ctx);
  addScheduleCommands(program, ctx);
  addApprovalCommands(program, ctx);
  addKeyCommands(program, ctx);
  addDebugCommands(program, ctx);
  addEvalCommands(program, ctx);
  return program;
}
