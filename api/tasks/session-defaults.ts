/** What a session a door opens for its caller is given: how long it lives idle, and how much history it keeps. */
export interface SessionDefaults {
  ttlSeconds: number;
  maxHistory: number;
}
