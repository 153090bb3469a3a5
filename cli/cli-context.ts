import type { ApiTarget } from './api-client';
import type { Output } from './output';

/** What every command reads from the global options and the environment. */
export interface CliContext {
  api(): ApiTarget;
  output(): Output;
  /** How a person runs this CLI again (`weft`, or `npm run weft --`), for the commands it suggests. */
  selfCommand: string;
}
