import type { OutboundHttp } from '../outbound/outbound-http';
import type { ToolDefinition } from '../tool';
import { calculatorTool } from './calculator';
import { httpFetchTool } from './http-fetch';
import { workspaceFileTools } from './workspace-files';

export function builtinTools(options: { workspaceRoot: string; httpFetch: OutboundHttp }): ToolDefinition[] {
  return [calculatorTool, httpFetchTool(options.httpFetch), ...workspaceFileTools(options.workspaceRoot)];
}
