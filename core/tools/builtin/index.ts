import type { ToolDefinition } from '../tool';
import { calculatorTool } from './calculator';
import { workspaceFileTools } from './workspace-files';

export function builtinTools(options: { workspaceRoot: string }): ToolDefinition[] {
  return [calculatorTool, ...workspaceFileTools(options.workspaceRoot)];
}
