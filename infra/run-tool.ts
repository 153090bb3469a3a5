// `npm run temporal -- …` and `npm run grpcurl -- …`: runs the tool Weft found or built (PATH,
// its override variable, or .tools/bin), so the docs' commands work as written.
import { spawnSync } from 'node:child_process';
import { ensureGoTool, grpcurl, temporalCli } from './go-tools';

const tools = { temporal: temporalCli, grpcurl };
const [name, ...args] = process.argv.slice(2);
const tool = tools[name as keyof typeof tools];
if (!tool) {
  console.error(`usage: run-tool.ts ${Object.keys(tools).join('|')} [args...]`);
  process.exit(2);
}
const binary = ensureGoTool(tool, (line) => console.error(line));
const run = spawnSync(binary, args, { stdio: 'inherit' });
if (run.error) {
  console.error(`${name}: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
