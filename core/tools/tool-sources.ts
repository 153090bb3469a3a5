import type { ToolRegistry } from './registry';
import type { ToolDefinition } from './tool';

// Tools that come from elsewhere (MCP servers, OpenAPI specs), registered when the process starts.
// A source that cannot be reached then is tried again, with growing pauses, until it can; its tools
// appear in the registry once it answers.

export interface ToolSource {
  /** How logs name it, e.g. "MCP server weather". */
  label: string;
  load(): Promise<{ tools: ToolDefinition[]; close?(): Promise<void> }>;
}

const retryMs = { first: 1_000, max: 60_000 };

export function registerToolSources(registry: ToolRegistry, sources: readonly ToolSource[], log: (line: string) => void): { close(): Promise<void> } {
  const closers: Array<() => Promise<void>> = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const attempt = async (source: ToolSource, waitMs: number) => {
    try {
      const loaded = await source.load();
      if (closed) return void (await loaded.close?.());
      registry.add(loaded.tools);
      if (loaded.close) closers.push(loaded.close);
      log(`${source.label}: ${loaded.tools.length} tools registered`);
    } catch (err) {
      if (closed) return;
      log(`${source.label} unavailable (${(err as Error).message}); trying again in ${waitMs / 1000} s`);
      const timer = setTimeout(() => {
        timers.delete(timer);
        void attempt(source, Math.min(waitMs * 2, retryMs.max));
      }, waitMs);
      timer.unref();
      timers.add(timer);
    }
  };
  for (const source of sources) void attempt(source, retryMs.first);
  return {
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(closers.map((close) => close()));
    },
  };
}
