import { agentRoutes } from './agent-routes';
import { authRoutes } from './auth-routes';
import { controlRoutes } from './control-routes';
import { directToolRoutes } from './direct-tool-routes';
import { skillRoutes } from './skill-routes';
import { fileRoutes } from './file-routes';
import { healthRoutes } from './health-routes';
import { sessionRoutes } from './session-routes';
import { shannonHttpRoute, type ShannonDeps, type ShannonRoute } from './shannon-route';
import type { HttpRoute } from '../http/http-route';
import { reviewRoutes } from './review-routes';
import { scheduleRoutes } from './schedule-routes';
import { taskRoutes } from './task-routes';

// Every route of Shannon's gateway that Weft serves beside its own (api/rest/routes.ts holds the
// ones that share a path with Weft's and go through one gRPC call).
export const shannonRoutes: readonly ShannonRoute[] = [
  ...healthRoutes,
  ...taskRoutes,
  ...sessionRoutes,
  ...fileRoutes,
  ...directToolRoutes,
  ...agentRoutes,
  ...skillRoutes,
  ...controlRoutes,
  ...reviewRoutes,
  ...authRoutes,
  ...scheduleRoutes,
];

/** Shannon's routes in the one route table. */
export const shannonHttpRoutes: readonly HttpRoute<ShannonDeps>[] = shannonRoutes.map(shannonHttpRoute);

export type { ShannonDeps } from './shannon-route';
