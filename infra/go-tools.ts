import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

// Command-line tools Weft builds from the Go module proxy when a machine lacks them, into a
// project-local folder (a no-op once built): the Temporal CLI, and grpcurl for the seed's examples.

const repoRoot = path.resolve(__dirname, '..');
const toolsBin = path.join(repoRoot, '.tools', 'bin');

export interface GoTool {
  binary: string;
  /** Pinned: newer Temporal CLI tags carry a replace directive that `go install` refuses. */
  module: string;
  /** An environment variable naming a binary to use instead. */
  override: string;
  installHint: string;
}

export const temporalCli: GoTool = {
  binary: 'temporal',
  module: 'github.com/temporalio/cli/cmd/temporal@v1.5.1',
  override: 'TEMPORAL_CLI',
  installHint:
    'the Temporal CLI: https://docs.temporal.io/cli#install (then make sure `temporal` is on PATH); ' +
    'or point Weft at an existing cluster with TEMPORAL_ADDRESS=host:7233',
};

export const grpcurl: GoTool = {
  binary: 'grpcurl',
  module: 'github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3',
  override: 'GRPCURL',
  installHint: 'grpcurl: https://github.com/fullstorydev/grpcurl#installation',
};

export function onPath(command: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Finds the tool (its override variable, PATH, .tools/bin) or builds it there with Go once. */
export function ensureGoTool(tool: GoTool, log: (line: string) => void = console.log): string {
  const local = path.join(toolsBin, tool.binary);
  const found = process.env[tool.override] || onPath(tool.binary) || (existsSync(local) ? local : undefined);
  if (found) return found;
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new Error(
      `${tool.binary} was not found and Go is not installed to build it. Install one of:\n` +
        `  - ${tool.installHint}, or\n` +
        `  - Go 1.22+ (https://go.dev/dl/), and Weft builds it: go install ${tool.module}`,
    );
  }
  log(`building ${tool.binary} into ${toolsBin} (once)...`);
  mkdirSync(toolsBin, { recursive: true });
  execFileSync(go, ['install', tool.module], { stdio: 'inherit', env: { ...process.env, CGO_ENABLED: '0', GOBIN: toolsBin } });
  return local;
}
