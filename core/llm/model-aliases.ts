// Names clients may ask for that stand for a configured model. Seed 002's AIService defaults to
// "venice-uncensored"; unless configured otherwise it means the medium-tier model.

export type ModelAliases = Readonly<Record<string, string>>;

export const defaultAiModelName = 'venice-uncensored';

/** WEFT_MODEL_ALIASES: a JSON object of alias → model, e.g. {"venice-uncensored": "qwen3-32b"}. */
export function parseModelAliases(json: string | undefined, fallbackModel: string): ModelAliases {
  const parsed: unknown = json ? JSON.parse(json) : {};
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string' || v === '')) {
    throw new Error('WEFT_MODEL_ALIASES must be a JSON object of alias to model name');
  }
  return { [defaultAiModelName]: fallbackModel, ...(parsed as Record<string, string>) };
}

/** The model a name stands for: an alias's target, or the name itself. */
export function resolveModelName(name: string, aliases: ModelAliases): string {
  return Object.hasOwn(aliases, name) ? aliases[name]! : name;
}
