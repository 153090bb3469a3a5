import path from 'node:path';
import { builtinTools } from './builtin';
import { createToolRegistry, type ToolRegistry } from './registry';

export type { ToolRegistry } from './registry';

/** The tools a Weft worker registers at start-up (and the API describes). */
export function createWeftToolRegistry(options: { workspaceDir: string }): ToolRegistry {
  return createToolRegistry(builtinTools({ workspaceRoot: path.resolve(options.workspaceDir) }));
}
