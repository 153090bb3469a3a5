import type { ToolRegistry } from './registry';
import type { ToolDefinition } from './tool';

// Tools that come from elsewhere (MCP servers, OpenAPI specs): from configuration at start, or
// registered at runtime. A source that cannot be reached is tried again, with growing pauses,
// until it can; its tools appear in the registry once it answers, and leave it when it is removed.

export interface ToolSource {
  /** Unique among sources, e.g. "mcp:weather"; logs name it so. */
  key: string;
  load(): Promise<{ tools: ToolDefinition[]; close?(): Promise<void> }>;
}

export interface ToolSources {
  add(source: ToolSource): void;
  remove(key: string): Promise<void>;
  keys(): string[];
  close(): Promise<void>;
}

const retryMs = { first: 1_000, max: 60_000 };

export function toolSources(registry: ToolRegistry, log: (line: string) => void): ToolSources {
  const active = new Map<string, { tools: string[]; close?: () => Promise<void>; timer?: NodeJS.Timeout; removed: boolean }>();

  const attempt = async (source: ToolSource, waitMs: number) => {
    const state = active.get(source.key);
    if (!state || state.removed) return;
    try {
      const loaded = await source.load();
      if (state.removed) return void (await loaded.close?.());
      registry.add(loaded.tools);
      state.tools = loaded.tools.map((tool) => tool.name);
      if (loaded.close) state.close = loaded.close;
      log(`tool source ${source.key}: ${loaded.tools.length} tools registered`);
    } catch (err) {
      if (state.removed) return;
      log(`tool source ${source.key} unavailable (${(err as Error).message}); trying again in ${waitMs / 1000} s`);
      state.timer = setTimeout(() => void attempt(source, Math.min(waitMs * 2, retryMs.max)), waitMs);
      state.timer.unref();
    }
  };

  const remove = async (key: string) => {
    const state = active.get(key);
    if (!state) return;
    state.removed = true;
    active.delete(key);
    clearTimeout(state.timer);
    registry.remove(state.tools);
    await state.close?.();
    if (state.tools.length > 0) log(`tool source ${key}: ${state.tools.length} tools removed`);
  };

  return {
    add(source) {
      if (active.has(source.key)) return;
      active.set(source.key, { tools: [], removed: false });
      void attempt(source, retryMs.first);
    },
    remove,
    keys: () => [...active.keys()],
    close: async () => {
      await Promise.all([...active.keys()].map(remove));
    },
  };
}
