import type { RouteDescription } from '../http/http-route';
import { shannonHttpRoutes } from '../shannon';
import { openAiRoutes } from '../openai/openai-routes';
import { grpcHttpRoutes, streamHttpRoutes } from './grpc-routes';
import { toolRoutes } from './tool-routes';
import { openApiRoute } from './openapi-route';

// Every HTTP route Weft serves, door by door, in the order they are registered: what /openapi.json
// lists. A test walks the routes Fastify registered and finds each here.
export const routeTable: readonly RouteDescription[] = [
  ...grpcHttpRoutes,
  ...streamHttpRoutes,
  ...toolRoutes,
  ...shannonHttpRoutes,
  ...openAiRoutes,
  openApiRoute,
];
