import type { OutboundHttp } from '../outbound/outbound-http';
import type { PythonSandbox } from '../python/python-sandbox';
import type { ToolDefinition } from '../tool';
import { calculatorTool } from './calculator';
import { dataTableTool } from './data-table';
import { httpFetchTool } from './http-fetch';
import { pythonExecutorTool } from './python-executor';
import { memoryFileTools, workspaceFileTools } from './workspace-files';
import { webSearchTool } from './web-search';
import type { SearchProvider } from '../web-search/search-providers';

export interface BuiltinToolOptions {
  workspaceRoot: string;
  httpFetch: OutboundHttp;
  python: { sandbox: PythonSandbox; memoryMb: number; timeoutMs: number; dataLimitBytes: number; programsPerTenant: number };
  /** web_search's provider (WEFT_WEB_SEARCH_PROVIDER); absent: no web_search. */
  webSearch?: SearchProvider;
}

export function builtinTools(options: BuiltinToolOptions): ToolDefinition[] {
  return [
    calculatorTool,
    pythonExecutorTool(options.python.sandbox, { ...options.python, workspaceRoot: options.workspaceRoot }),
    dataTableTool,
    httpFetchTool(options.httpFetch),
    ...workspaceFileTools(options.workspaceRoot),
    ...memoryFileTools(options.workspaceRoot),
    ...(options.webSearch ? [webSearchTool(options.webSearch)] : []),
  ];
}
