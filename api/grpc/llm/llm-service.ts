import { decideComplexity, heuristicComplexity } from '../../../core/orchestration/complexity';
import type { ToolRegistry } from '../../../core/tools/registry';
import { textOf, userText } from '../../../core/transcript';
import type { LLMServiceHandlers } from '../../../protos/generated/shannon/llm/LLMService';
import { invalid } from '../../tasks/task-errors';
import { authorized } from '../unary';
import { completionHandlers, type CompletionDeps } from './completions';
import { listModels } from './model-listing';

// LLMService (seed 000): the model gateway as a gRPC service, on its own port.

export interface LlmDeps extends CompletionDeps {
  tools: ToolRegistry;
}

const maxEmbedTexts = 256;

export function createLlmService(deps: LlmDeps): LLMServiceHandlers {
  return {
    ...completionHandlers(deps),

    EmbedText: authorized(deps.auth, async (request) => {
      if (request.texts.length === 0) throw invalid('texts must not be empty');
      if (request.texts.length > maxEmbedTexts) throw invalid(`texts takes at most ${maxEmbedTexts} items`);
      const empty = request.texts.findIndex((text) => text === '');
      if (empty >= 0) throw invalid(`texts[${empty}] is empty`);
      const { vectors, model } = await deps.gateway.embed(request.texts, request.model || undefined);
      return {
        embeddings: vectors.map((vector, i) => ({ vector, text: request.texts[i]! })),
        dimensions: vectors[0]?.length ?? 0,
        model_used: model,
      };
    }),

    AnalyzeComplexity: authorized(deps.auth, async (request, principal) => {
      if (!request.query.trim()) throw invalid('query is required');
      const tools = request.available_tools.length > 0 ? request.available_tools : deps.tools.list(principal.tenantId).map((t) => t.name);
      const medium = deps.gateway.firstChoice('MEDIUM');
      const heuristic = heuristicComplexity(request.query, 1500, medium ? (medium.prompt_per_1k + medium.completion_per_1k) / 2 : 0);
      const verdict = await decideComplexity(heuristic, request.query, tools, (prompt) =>
        deps.gateway.complete({ tier: 'SMALL', messages: [userText(prompt)] }).then((reply) => textOf(reply.message)),
      );
      return {
        recommended_mode: `EXECUTION_MODE_${verdict.recommended_mode}`,
        complexity_score: verdict.complexity_score,
        required_capabilities: verdict.required_capabilities,
        estimated_agents: verdict.estimated_agents,
        estimated_tokens: verdict.estimated_tokens,
        estimated_cost_usd: verdict.estimated_cost_usd,
        reasoning: verdict.reasoning,
      };
    }),

    ListModels: authorized(deps.auth, async (request) => listModels(deps.gateway, request)),
  };
}
