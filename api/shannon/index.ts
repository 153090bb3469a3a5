import { healthRoutes } from './health-routes';
import type { ShannonRoute } from './shannon-route';
import { taskRoutes } from './task-routes';

// Every route of Shannon's gateway that Weft serves beside its own (api/rest/routes.ts holds the
// ones that share a path with Weft's and go through one gRPC call).
export const shannonRoutes: readonly ShannonRoute[] = [...healthRoutes, ...taskRoutes];

export { registerShannonRoutes, type ShannonDeps } from './shannon-route';
