import type { ModelTier } from '../orchestration/plan';
import { UnknownModelError } from './gateway-errors';
import { findModel, tierModels, type CatalogModel, type ModelCatalog } from './model-catalog';
import { resolveModelName, type ModelAliases } from './model-aliases';

export interface Candidates {
  /** How errors name what was asked for. */
  wanted: string;
  /** The models that may answer, best first. */
  models: CatalogModel[];
  /** Why the others may not. */
  refused: string[];
}

/** A request's candidate models: the named one (after aliases), or the tier's, cheapest first. */
export function candidatesFor(
  catalog: ModelCatalog,
  aliases: ModelAliases,
  request: { model?: string; tier?: ModelTier; tools?: readonly unknown[] },
  needs: { streaming?: boolean },
): Candidates {
  let wanted: string;
  let models: CatalogModel[];
  if (request.model) {
    const id = resolveModelName(request.model, aliases);
    const model = findModel(catalog, id);
    if (!model) throw new UnknownModelError(id);
    wanted = `with model ${id}`;
    models = [model];
  } else {
    const tier = request.tier ?? 'MEDIUM';
    wanted = `in tier ${tier}`;
    models = tierModels(catalog, tier);
  }
  const refused: string[] = [];
  const usable = models.filter((model) => {
    const lacks = !model.available
      ? 'marked unavailable in the catalog'
      : request.tools?.length && !model.supports_tools
        ? 'does not support tools'
        : needs.streaming && !model.supports_streaming
          ? 'does not support streaming'
          : undefined;
    if (lacks) refused.push(`${model.id}: ${lacks}`);
    return !lacks;
  });
  if (models.length === 0) refused.push('the catalog lists no model there');
  return { wanted, models: usable, refused };
}
