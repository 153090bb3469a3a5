import type { Pool } from 'pg';
import type { ChatModel } from '../core/llm/chat-model';
import type { ModelPrices } from '../core/llm/pricing';
import type { ModelTier } from '../core/orchestration/plan';
import type { RuntimeStore } from '../core/store';
import type { ToolRegistry } from '../core/tools/registry';

/** What the activities run against; built once per worker. */
export interface ActivityDeps {
  pool: Pool;
  store: RuntimeStore;
  chatModel: ChatModel;
  /** The model for each tier; a step that names no tier uses MEDIUM. */
  models: Record<ModelTier, string>;
  prices: ModelPrices;
  tools: ToolRegistry;
}
