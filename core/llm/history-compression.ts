import type { ModelTier } from '../orchestration/plan';
import { isSummaryMessage, summaryMessage, userText, type CompactionPayload, type Message } from '../transcript';
import type { ModelGateway } from './gateway';
import { countMessageTokens, messageTokensAtMost } from './tokenizer';

// History compression (seed 003's History policy): once a transcript passes a token threshold, its
// older turns are summarised by the history model and the newest complete turns stay exactly as
// they were. A turn is one user → assistant interaction: it starts at a user message that says
// something (not only tool results) and runs to the next one, tool calls and their results
// included, so it is never cut in half.

export interface HistoryPolicy {
  /** Compress once the transcript is over this many tokens; 0 never compresses. */
  compressAtTokens: number;
  /** The newest complete turns kept byte for byte. */
  keepTurns: number;
  /** The model (catalog id or alias) that writes the summary; the small tier's when omitted. */
  model?: string;
}

export function turnsOf(messages: readonly Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const message of messages) {
    const startsTurn = message.role === 'user' && message.parts.some((p) => p.kind !== 'tool_result');
    if (startsTurn || turns.length === 0) turns.push([message]);
    else turns.at(-1)!.push(message);
  }
  return turns;
}

export interface CompressionPlan {
  replaced: Message[];
  kept: Message[];
  keptTurns: number;
  tokens: number;
}

/** What to summarise, when the transcript is over the threshold and has turns older than the kept ones. */
export function planCompression(
  messages: readonly Message[],
  policy: HistoryPolicy,
  countTokens: (messages: readonly Message[]) => number,
): CompressionPlan | undefined {
  if (policy.compressAtTokens <= 0) return undefined;
  const tokens = countTokens(messages);
  if (tokens <= policy.compressAtTokens) return undefined;
  const turns = turnsOf(messages);
  const keptTurns = Math.min(policy.keepTurns, turns.length);
  const older = turns.slice(0, turns.length - keptTurns);
  // Only an earlier summary before the kept turns: summarising it again would gain nothing.
  if (older.every((turn) => turn.length === 1 && isSummaryMessage(turn[0]!))) return undefined;
  const replaced = older.flat();
  return { replaced, kept: messages.slice(replaced.length), keptTurns, tokens: countTokens(replaced) };
}

function render(message: Message): string[] {
  const speaker = message.role === 'user' ? 'User' : 'Assistant';
  return message.parts.flatMap((part) => {
    if (part.kind === 'text') return [`${speaker}: ${part.text}`];
    if (part.kind === 'tool_use') return [`Assistant called ${part.name} (${part.id}) with ${JSON.stringify(part.input ?? {})}`];
    if (part.kind === 'tool_result') {
      const content = typeof part.content === 'string' ? part.content : JSON.stringify(part.content);
      return [`Result of ${part.toolUseId}${part.isError ? ' (error)' : ''}: ${content}`];
    }
    if (part.kind === 'document') return [`${speaker} shared a document${part.name ? ` "${part.name}"` : ''}: ${part.text ?? ''}`];
    if (part.kind === 'image') return [`${speaker} shared an image`];
    return [];
  });
}

export function summarizationPrompt(replaced: readonly Message[]): string {
  return [
    'Summarise the conversation below for the assistant that continues it. Keep every fact, decision,',
    'number, name, open question and tool result it may need; drop pleasantries. Answer with the summary only.',
    '',
    ...replaced.flatMap(render),
  ].join('\n');
}

export interface Compression {
  /** The transcript the model sees from now on: the summary, then the kept turns. */
  messages: Message[];
  record: CompactionPayload;
  /** What the summary cost. */
  costUsd: number;
}

/** Compresses when the policy says so; undefined when the transcript stays as it is. */
export async function compressHistory(
  gateway: ModelGateway,
  request: { messages: readonly Message[]; system?: string; tier: ModelTier; policy: HistoryPolicy; signal?: AbortSignal },
): Promise<Compression | undefined> {
  // Most steps are far below the threshold: a byte count says so without a tokenizer pass.
  if (messageTokensAtMost(request.messages, request.system) <= request.policy.compressAtTokens) return undefined;
  const tokenizer = gateway.firstChoice(request.tier)?.tokenizer ?? 'o200k_base';
  const plan = planCompression(request.messages, request.policy, (messages) => countMessageTokens(messages, tokenizer, request.system));
  if (!plan) return undefined;
  const summary = await gateway.complete({
    ...(request.policy.model ? { model: request.policy.model } : { tier: 'SMALL' }),
    messages: [userText(summarizationPrompt(plan.replaced))],
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const text = summary.message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
  const record: CompactionPayload = {
    summary: text,
    replacedMessages: plan.replaced.length,
    replacedTokens: plan.tokens,
    keptTurns: plan.keptTurns,
    model: summary.model,
    usage: summary.usage,
  };
  return { messages: [summaryMessage(text), ...plan.kept], record, costUsd: summary.costUsd };
}
