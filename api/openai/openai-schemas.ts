import { z } from 'zod';

// OpenAI's request and answer bodies as Weft's /v1 routes read and answer them, for /openapi.json:
// the fields Weft reads (any other is refused), with OpenAI's sampling settings, which are checked
// for type and otherwise left to the model catalog's tier.

const numberOrNull = z.number().nullable().optional();
const text = z.union([z.string(), z.array(z.object({ type: z.literal('text'), text: z.string() }))]);

const sampling = {
  temperature: numberOrNull,
  top_p: numberOrNull,
  max_tokens: numberOrNull,
  max_completion_tokens: numberOrNull,
  presence_penalty: numberOrNull,
  frequency_penalty: numberOrNull,
  seed: numberOrNull,
  top_logprobs: numberOrNull,
  stop: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  logprobs: z.union([z.boolean(), z.number()]).nullable().optional(),
};
const shared = {
  model: z.string().describe('a model of GET /v1/models, by id or alias'),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
  n: z.literal(1).nullable().optional().describe('Weft answers one choice'),
  user: z.string().max(256).optional(),
  ...sampling,
};

const toolCall = z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) });
const chatMessage = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: text.nullable().optional(),
  name: z.string().optional(),
  tool_calls: z.array(toolCall).optional(),
  tool_call_id: z.string().optional().describe("a tool message: the call it answers (the task waiting for the client's tools)"),
});
const functionTool = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
});

export const chatCompletionBody = z.strictObject({
  ...shared,
  messages: z.array(chatMessage).min(1),
  tools: z.array(functionTool).optional().describe('tools the client runs: the task waits for their results'),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().optional(),
  shannon_options: z
    .object({
      context: z.record(z.string(), z.unknown()).optional(),
      agent: z.string().optional(),
      agent_input: z.record(z.string(), z.unknown()).optional(),
      research_strategy: z.string().optional(),
      model_tier: z.string().optional(),
    })
    .optional()
    .describe("Shannon's extension: each option onto the task (role is refused)"),
});

export const completionBody = z.strictObject({
  ...shared,
  prompt: z.union([z.string(), z.array(z.string())]),
  echo: z.boolean().optional(),
  suffix: z.string().nullable().optional(),
  best_of: z.number().nullable().optional(),
});

const usage = z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() });
export const completionAnswer = z
  .object({
    id: z.string().describe("the task's id"),
    object: z.enum(['chat.completion', 'text_completion']),
    created: z.number(),
    model: z.string(),
    system_fingerprint: z.null(),
    choices: z.array(
      z.object({
        index: z.number(),
        message: z
          .object({ role: z.literal('assistant'), content: z.string().nullable(), refusal: z.null(), tool_calls: z.array(toolCall).optional() })
          .optional(),
        text: z.string().optional(),
        logprobs: z.null(),
        finish_reason: z.enum(['stop', 'tool_calls']),
      }),
    ),
    usage,
  })
  .describe('with stream: true, server-sent chat.completion.chunk (or text_completion) objects, then data: [DONE]');

const model = z.object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() });
export const modelsAnswer = z.object({ object: z.literal('list'), data: z.array(model) });
export const modelAnswer = model;

export const responseBody = z.strictObject({
  model: z.string(),
  input: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]).describe('a message, or items (messages, function_call, function_call_output)'),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().optional(),
  background: z.boolean().optional(),
  store: z.literal(true).optional().describe('every response is kept (a durable task)'),
  previous_response_id: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  user: z.string().optional(),
  text: z.object({ format: z.object({ type: z.literal('text') }).optional() }).optional(),
  tools: z.array(z.record(z.string(), z.unknown())).optional(),
  temperature: numberOrNull,
  top_p: numberOrNull,
  max_output_tokens: numberOrNull,
  max_tool_calls: numberOrNull,
  top_logprobs: numberOrNull,
  parallel_tool_calls: z.boolean().nullable().optional(),
  truncation: z.enum(['auto', 'disabled']).nullable().optional(),
  tool_choice: z.enum(['auto', 'none']).nullable().optional(),
  include: z.array(z.string()).nullable().optional(),
  reasoning: z.record(z.string(), z.unknown()).nullable().optional(),
  stream_options: z.record(z.string(), z.unknown()).nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  service_tier: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
});

export const responseAnswer = z
  .object({
    id: z.string().describe("the response's id, which names its task"),
    object: z.literal('response'),
    created_at: z.number(),
    status: z.enum(['queued', 'in_progress', 'completed', 'incomplete', 'cancelled', 'failed']),
    background: z.boolean().nullable().optional(),
    model: z.string(),
    instructions: z.string().nullable().optional(),
    previous_response_id: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.string()).nullable().optional(),
    output: z.array(z.record(z.string(), z.unknown())).describe('message and function_call items'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.null(),
    usage: z
      .object({
        input_tokens: z.number(),
        input_tokens_details: z.object({ cached_tokens: z.number() }),
        output_tokens: z.number(),
        output_tokens_details: z.object({ reasoning_tokens: z.number() }),
        total_tokens: z.number(),
      })
      .nullable(),
    parallel_tool_calls: z.boolean(),
    tool_choice: z.string(),
    tools: z.array(z.unknown()),
    temperature: z.null(),
    top_p: z.null(),
    text: z.object({ format: z.object({ type: z.literal('text') }) }),
    truncation: z.string(),
    store: z.boolean(),
  })
  .describe('with stream: true, server-sent response.* events');

export const responseQuery = z.object({
  stream: z.enum(['true', 'false']).optional().describe("the response's events, live until it ends"),
  starting_after: z.string().optional().describe('the sequence number of the last event received'),
});
