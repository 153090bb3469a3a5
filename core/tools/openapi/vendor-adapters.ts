// Vendor adapters reshape one vendor's requests and responses (renamed fields, envelopes, extra
// defaults) without touching the OpenAPI tool code: an OpenAPI source names its adapter
// (`vendor`), and code registers adapters by that name at start-up.

export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: unknown;
}

export interface VendorAdapter {
  request?(operationId: string, request: OutgoingRequest): OutgoingRequest;
  response?(operationId: string, body: unknown): unknown;
}

const adapters = new Map<string, VendorAdapter>();

export function registerVendorAdapter(name: string, adapter: VendorAdapter): void {
  if (adapters.has(name)) throw new Error(`a vendor adapter named ${name} is already registered`);
  adapters.set(name, adapter);
}

export function vendorAdapter(name: string): VendorAdapter {
  const adapter = adapters.get(name);
  if (!adapter) throw new Error(`no vendor adapter named ${name} is registered`);
  return adapter;
}
