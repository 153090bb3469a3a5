import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A small pet store the tests serve over HTTP, with a spec whose schemas and parameters are $refs.
// It takes "Bearer pet-token" or ?api_key=k-123, and records every request in `seen`.

export const petStoreSpec = (extra: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1.0.0' },
  servers: [{ url: '/api' }],
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        summary: 'Lists pets, optionally by tag.',
        parameters: [{ name: 'tag', in: 'query', schema: { type: 'string' } }, { $ref: '#/components/parameters/Limit' }],
      },
      post: {
        operationId: 'createPet',
        summary: 'Adds a pet.',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
      },
    },
    '/pets/{petId}': {
      parameters: [{ $ref: '#/components/parameters/PetId' }],
      get: { operationId: 'getPet', summary: 'One pet by id.' },
    },
    '/pets/{petId}/adoption': {
      parameters: [{ $ref: '#/components/parameters/PetId' }],
      post: {
        operationId: 'adoptPet',
        summary: 'Adopts a pet; a repeated Idempotency-Key adopts it once.',
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
      },
    },
  },
  components: {
    parameters: {
      PetId: { name: 'petId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
      Limit: { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } },
    },
    schemas: {
      Tag: { type: 'string', enum: ['cat', 'dog'] },
      NewPet: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 }, tag: { $ref: '#/components/schemas/Tag' } },
        required: ['name'],
        additionalProperties: false,
      },
    },
  },
  ...extra,
});

export const seen: Array<{ method: string; url: string; authorization?: string; idempotencyKey?: string; body: string }> = [];
const pets = [
  { id: 1, name: 'Rex', tag: 'dog' },
  { id: 2, name: 'Tom', tag: 'cat' },
];

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the pet store on a free port; its spec is at <base>/openapi.json. */
export async function startPetStore(): Promise<{ base: string; stop(): Promise<void> }> {
  const peer: Server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const url = new URL(req.url!, 'http://peer');
      const key = req.headers['idempotency-key'] as string | undefined;
      seen.push({
        method: req.method!,
        url: req.url!,
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(key ? { idempotencyKey: key } : {}),
        body,
      });
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname === '/openapi.json') return json(200, petStoreSpec());
      if (url.pathname === '/remote-ref.json')
        return json(200, petStoreSpec({ components: { schemas: { NewPet: { $ref: 'https://schemas.example.com/pet.json' } } } }));
      if (url.pathname === '/swagger2.json') return json(200, { swagger: '2.0', paths: {} });
      if (req.headers.authorization !== 'Bearer pet-token' && url.searchParams.get('api_key') !== 'k-123') return json(401, { error: 'who are you?' });
      if (url.pathname === '/api/pets' && req.method === 'GET') {
        const tagged = pets.filter((p) => !url.searchParams.get('tag') || p.tag === url.searchParams.get('tag'));
        return json(200, { data: tagged.slice(0, Number(url.searchParams.get('limit') ?? 100)) });
      }
      if (url.pathname === '/api/pets' && req.method === 'POST') return json(201, { id: 3, ...JSON.parse(body) });
      const adoption = /^\/api\/pets\/(\d+)\/adoption$/.exec(url.pathname);
      if (adoption && req.method === 'POST') return json(200, { adopted: Number(adoption[1]) });
      const match = /^\/api\/pets\/(\d+)$/.exec(url.pathname);
      const pet = match && pets.find((p) => p.id === Number(match[1]));
      return pet ? json(200, pet) : json(404, { error: 'no such pet' });
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(peer.address() as AddressInfo).port}`, stop: () => new Promise((resolve) => peer.close(() => resolve())) };
}
