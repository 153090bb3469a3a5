import type { Pool } from 'pg';
import type { ModelGateway } from '../core/llm/gateway';
import type { RuntimeStore } from '../core/store';
import type { ToolRegistry } from '../core/tools/registry';

/** What the activities run against; built once per worker. */
export interface ActivityDeps {
  pool: Pool;
  store: RuntimeStore;
  /** Every model call goes through it; a step that names no tier asks for MEDIUM. */
  gateway: ModelGateway;
  /** How long a model step's answer serves identical steps of tasks that ask for caching. */
  cacheTtlSeconds: number;
  tools: ToolRegistry;
}
