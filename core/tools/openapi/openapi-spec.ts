import { readFile } from 'node:fs/promises';
import { dereference } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import type { OutboundHttp } from '../outbound/outbound-http';
import { readLimited } from '../outbound/outbound-http';
import { ToolError } from '../tool';

// An OpenAPI 3.0 or 3.1 document, from a file or a URL (through the outbound guard, so
// OPENAPI_ALLOWED_DOMAINS applies), JSON or YAML, within a size limit, with its local $refs
// resolved (json-schema-ref-parser). Remote $refs are refused: bundle them into the spec.

export interface OpenApiDocument {
  openapi: string;
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, unknown>>;
}

export type SpecSource = { file: string } | { url: string };

const invalid = (message: string) => new ToolError('validation', `OpenAPI spec: ${message}`);

/** Every $ref that does not point inside the document. */
function remoteRefs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => remoteRefs(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && !child.startsWith('#')) found.push(child);
      else remoteRefs(child, found);
    }
  }
  return found;
}

async function readSource(source: SpecSource, outbound: OutboundHttp, maxBytes: number): Promise<string> {
  if ('file' in source) {
    const text = await readFile(source.file, 'utf8');
    if (Buffer.byteLength(text) > maxBytes) throw invalid(`${source.file} is larger than the ${maxBytes}-byte limit`);
    return text;
  }
  const response = await outbound.fetch(source.url, { method: 'GET', headers: { accept: 'application/json, application/yaml;q=0.9' } });
  if (response.status >= 400) throw new ToolError('network', `OpenAPI spec: HTTP ${response.status} from ${source.url}`);
  return readLimited(response, maxBytes).catch((err: unknown) => {
    throw err instanceof ToolError ? invalid(`${source.url} is larger than the ${maxBytes}-byte limit`) : err;
  });
}

export async function loadOpenApiSpec(source: SpecSource, outbound: OutboundHttp, maxBytes: number): Promise<OpenApiDocument> {
  const text = await readSource(source, outbound, maxBytes);
  let document: unknown;
  try {
    document = parseYaml(text); // YAML is a superset of JSON
  } catch (err) {
    throw invalid(`not JSON or YAML: ${(err as Error).message}`);
  }
  const spec = document as Partial<OpenApiDocument> | null;
  if (!spec || typeof spec !== 'object' || typeof spec.openapi !== 'string' || !/^3\.[01]\./.test(spec.openapi)) {
    throw invalid(`only OpenAPI 3.0 and 3.1 are supported, got ${JSON.stringify(spec?.openapi ?? null)}`);
  }
  if (!spec.paths || typeof spec.paths !== 'object') throw invalid('it has no paths');
  const remote = remoteRefs(spec);
  if (remote.length > 0) throw invalid(`remote $ref ${remote[0]} is not supported; bundle external schemas into the spec`);
  try {
    return (await dereference(structuredClone(spec), { resolve: { external: false }, dereference: { circular: false } })) as OpenApiDocument;
  } catch (err) {
    throw invalid(`its $refs cannot be resolved: ${(err as Error).message}`);
  }
}
