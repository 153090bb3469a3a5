// A tool as the platform sees it: the seed's metadata plus the function that runs it.

export type JsonSchema = Record<string, unknown>;

export interface ToolMetadata {
  name: string;
  version: string;
  description: string;
  category: string;
  parameters: JsonSchema;
  timeoutMs: number;
  /** Needs human approval (or an admin caller) before it runs. */
  dangerous: boolean;
  sessionAware: boolean;
}

export interface ToolContext {
  tenantId: string;
  sessionId: string;
  taskId: string;
  signal?: AbortSignal;
}

export interface ToolDefinition extends ToolMetadata {
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/** The seed's four error categories, surfaced to agents as typed tool results. */
export type ToolErrorCategory = 'validation' | 'execution' | 'network' | 'circuit_open';

export class ToolError extends Error {
  constructor(
    readonly category: ToolErrorCategory,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export type ToolOutcome =
  | { ok: true; content: unknown }
  | { ok: false; error: { category: ToolErrorCategory; message: string } };
