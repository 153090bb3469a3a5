import type { PromptParams } from '../tool';

// Vendor adapters reshape one vendor's requests and responses (renamed fields, envelopes, extra
// defaults, values from the task's context.prompt_params such as an account id) without touching
// the OpenAPI tool code: an OpenAPI source names its adapter (`vendor`), and code registers adapters
// by that name at start-up. A source naming an adapter that is not registered runs without one, as
// the seed's loader falls back.

export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: unknown;
}

export interface VendorAdapter {
  /** `promptParams`: the task's context.prompt_params ({} when it gave none). */
  request?(operationId: string, request: OutgoingRequest, promptParams: Readonly<PromptParams>): OutgoingRequest;
  response?(operationId: string, body: unknown): unknown;
}

const adapters = new Map<string, VendorAdapter>();

export function registerVendorAdapter(name: string, adapter: VendorAdapter): void {
  if (adapters.has(name)) throw new Error(`a vendor adapter named ${name} is already registered`);
  adapters.set(name, adapter);
}

/** The adapter registered under `name`, or none (the source's tools then run unadapted). */
export function vendorAdapter(name: string): VendorAdapter | undefined {
  return adapters.get(name);
}
