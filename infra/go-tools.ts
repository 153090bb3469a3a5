import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Command-line tools Weft builds from the Go module proxy when a machine lacks them, into a
// project-local folder (a no-op once built): the Temporal CLI, grpcurl for the seed's examples, and
// for `make cluster` the Temporal server, its schema tool and the Web UI server.

const repoRoot = path.resolve(__dirname, '..');
const toolsBin = path.join(repoRoot, '.tools', 'bin');

export interface GoTool {
  /** Its name in .tools/bin (and on PATH). */
  binary: string;
  /** What `go install` names the binary, when that differs (several modules build a `server`). */
  builtAs?: string;
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

/** The real Temporal server (frontend, history, matching, worker), as `make cluster` runs it. */
export const temporalServer: GoTool = {
  binary: 'temporal-server',
  builtAs: 'server',
  module: 'go.temporal.io/server/cmd/server@v1.32.1',
  override: 'TEMPORAL_SERVER',
  installHint: 'the Temporal server: https://github.com/temporalio/temporal/releases',
};

/** Temporal's schema tool, which creates and migrates its Postgres databases. */
export const temporalSqlTool: GoTool = {
  binary: 'temporal-sql-tool',
  builtAs: 'sql',
  module: 'go.temporal.io/server/cmd/tools/sql@v1.32.1',
  override: 'TEMPORAL_SQL_TOOL',
  installHint: 'temporal-sql-tool: https://github.com/temporalio/temporal/releases',
};

/** The standalone Temporal Web UI server (the one the CLI embeds). */
export const temporalUiServer: GoTool = {
  binary: 'temporal-ui-server',
  builtAs: 'server',
  module: 'github.com/temporalio/ui-server/v2/cmd/server@v2.42.1',
  override: 'TEMPORAL_UI_SERVER',
  installHint: 'the Temporal UI server: https://github.com/temporalio/ui-server/releases',
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

/** The module a binary in .tools/bin was built from, as its stamp file says. */
const builtFrom = (local: string) => (existsSync(`${local}.module`) ? readFileSync(`${local}.module`, 'utf8').trim() : undefined);

/**
 * Finds the tool (its override variable, PATH, .tools/bin) or builds it there with Go once; a
 * binary in .tools/bin built from another version than the one pinned here is built again.
 */
export function ensureGoTool(tool: GoTool, log: (line: string) => void = console.log): string {
  const local = path.join(toolsBin, tool.binary);
  const found = process.env[tool.override] || onPath(tool.binary) || (existsSync(local) && builtFrom(local) === tool.module ? local : undefined);
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
  // Built in a folder of its own, then named: two modules build a binary called `server`.
  const buildDir = mkdtempSync(path.join(toolsBin, '.build-'));
  try {
    execFileSync(go, ['install', tool.module], { stdio: 'inherit', env: { ...process.env, CGO_ENABLED: '0', GOBIN: buildDir } });
    renameSync(path.join(buildDir, tool.builtAs ?? tool.binary), local);
    writeFileSync(`${local}.module`, `${tool.module}\n`);
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
  return local;
}
