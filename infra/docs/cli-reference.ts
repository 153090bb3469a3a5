import type { Argument, Command, Option } from 'commander';
import { weftProgram } from '../../cli/program';
import { anchorOf, cell, code, generatedPage, table } from './markdown';

// docs/reference/cli.md from the `weft` command's commander tree (cli/program.ts): every command
// with its arguments and options, as `--help` prints them.

const argumentText = (arg: Argument) => {
  const name = arg.name() + (arg.variadic ? '...' : '');
  return arg.required ? `<${name}>` : `[${name}]`;
};

function optionRows(options: readonly Option[]): string[][] {
  return options.map((option) => {
    const notes: string[] = [];
    if (option.argChoices) notes.push(`one of ${option.argChoices.map(code).join(', ')}`);
    if (option.defaultValue !== undefined && option.defaultValue !== false && !option.negate)
      notes.push(`default ${code(JSON.stringify(option.defaultValue))}`);
    return [code(option.flags), cell([option.description, ...notes].filter(Boolean).join('; '))];
  });
}

function usageOf(path: string[], command: Command): string {
  const args = command.registeredArguments.map(argumentText).join(' ');
  const options = command.options.length > 0 ? ' [options]' : '';
  const sub = command.commands.length > 0 ? ' <command>' : '';
  return `${path.join(' ')}${options}${sub}${args ? ` ${args}` : ''}`;
}

function commandSection(path: string[], command: Command, depth: number): string[] {
  const title = path.slice(1).join(' ');
  const lines = [`${'#'.repeat(depth)} ${title}`, '', cell(command.description()), '', '```', usageOf(path, command), '```', ''];
  if (command.registeredArguments.length > 0)
    lines.push(
      table(
        ['Argument', 'What it is'],
        command.registeredArguments.map((arg) => [code(argumentText(arg)), cell(arg.description)]),
      ),
      '',
    );
  if (command.options.length > 0) lines.push(table(['Option', 'What it does'], optionRows(command.options)), '');
  for (const sub of command.commands) lines.push(...commandSection([...path, sub.name()], sub, Math.min(depth + 1, 4)));
  return lines;
}

export function cliReference(): string {
  // The defaults a user gets: no WEFT_API_ADDRESS, the command as installed.
  const program = weftProgram({ apiKey: () => undefined, selfCommand: 'weft' });
  const commands = program.commands;
  return generatedPage(
    'The weft CLI',
    'the commander tree in cli/program.ts',
    [
      '`weft` talks to a running Weft API over gRPC, and operates a deployment (keys, replay, verify, fork, evals) through',
      'its database and Temporal. In a checkout, run it as `npm run weft -- <command>`. It sends the key in `WEFT_API_KEY`, or',
      'the development key `make up` wrote to `.state/dev-api-key`.',
      '',
      '## Global options',
      '',
      table(['Option', 'What it does'], optionRows(program.options)),
      '',
      '## Commands',
      '',
      table(
        ['Command', 'What it does'],
        commands.map((command) => [`[${command.name()}](#${anchorOf(command.name())})`, cell(command.description())]),
      ),
    ],
    commands.flatMap((command) => commandSection(['weft', command.name()], command, 3)),
  );
}
