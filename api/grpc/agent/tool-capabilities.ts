import type { ToolMetadata } from '../../../core/tools/tool';
import type { ToolRegistry } from '../../../core/tools/registry';
import type { DiscoverToolsRequest__Output } from '../../../protos/generated/shannon/agent/DiscoverToolsRequest';
import type { ToolCapability } from '../../../protos/generated/shannon/agent/ToolCapability';
import { invalid, notFound } from '../../tasks/task-errors';
import { jsonToStruct } from '../struct';

const maxResults = 100;

/** A registered tool as the seed's ToolCapability. */
export function toolCapability(tool: ToolMetadata): ToolCapability {
  return {
    id: tool.name,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    input_schema: jsonToStruct(tool.parameters),
    output_schema: jsonToStruct({}),
    // Dangerous tools run only after a human approves them (or for an admin caller); requires_auth
    // tools only with the calling user's own credentials.
    required_permissions: [...(tool.dangerous ? ['approval'] : []), ...(tool.requiresAuth ? ['user_credentials'] : [])],
    estimated_duration_ms: '0',
    is_dangerous: tool.dangerous,
    version: tool.version,
    author: 'weft',
    tags: [tool.category, ...(tool.sessionAware ? ['session'] : []), ...(tool.sandboxed ? ['sandboxed'] : []), `idempotency:${tool.idempotency}`],
    examples: [],
    cache_ttl_ms: '0',
  };
}

/**
 * DiscoverTools: tools passing the filters that share a word with the query (any tool for an empty
 * query), those sharing the most words first, up to max_results.
 */
export function discoverTools(registry: ToolRegistry, request: DiscoverToolsRequest__Output, tenantId: string): ToolCapability[] {
  if (request.max_results < 0) throw invalid('max_results must be >= 0');
  const words = request.query.toLowerCase().split(/\W+/).filter(Boolean);
  const scored = registry
    .list(tenantId)
    .map(toolCapability)
    .filter((tool) => !(request.exclude_dangerous && tool.is_dangerous))
    .filter((tool) => request.categories.length === 0 || request.categories.includes(tool.category!))
    .filter((tool) => request.tags.length === 0 || request.tags.some((tag) => tool.tags!.includes(tag)))
    .map((tool) => {
      const text = `${tool.name} ${tool.description} ${tool.category}`.toLowerCase();
      return { tool, score: words.filter((word) => text.includes(word)).length };
    })
    .filter(({ score }) => words.length === 0 || score > 0)
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, Math.min(request.max_results || maxResults, maxResults)).map(({ tool }) => tool);
}

export function toolCapabilityOf(registry: ToolRegistry, toolId: string, tenantId: string): ToolCapability {
  if (!toolId) throw invalid('tool_id is required');
  const tool = registry.get(toolId, tenantId);
  if (!tool) throw notFound(`tool ${toolId} not found`);
  return toolCapability(tool);
}
