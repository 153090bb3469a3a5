import { BrokenCircuitError, SamplingBreaker, circuitBreaker, handleWhenResult, type CircuitBreakerPolicy } from 'cockatiel';
import { z } from 'zod';
import type { ToolOutcome } from './tool';

// The seed's enforcement breaker (ENFORCE_CB_*): a tool whose calls fail at more than the threshold
// rate over a sliding window, once it has had enough calls in it, stops being called for a while
// (MCP_CB_RECOVERY_SECONDS), then one call probes it. Per tool and per worker process, beside the
// per-origin breaker of outbound HTTP. Refusals (bad arguments, policy, rate limits) are not its
// failures: only calls that ran and failed count.

export const errorRateEnvSchema = z.object({
  ENFORCE_CB_ERROR_THRESHOLD: z.coerce
    .number()
    .gt(0)
    .max(1)
    .default(0.5)
    .describe("The share of a tool's calls failing (over the window) that stops it being called for MCP_CB_RECOVERY_SECONDS (0.5: half)."),
  ENFORCE_CB_WINDOW_SECONDS: z.coerce.number().positive().default(30).describe("The sliding window, in seconds, over which a tool's failure rate is measured."),
  ENFORCE_CB_MIN_REQUESTS: z.coerce.number().int().positive().default(20).describe("Calls the window must hold before a tool's failure rate can stop it."),
});

export interface ErrorRateSettings {
  /** The failing share of calls that opens the circuit (0.5: half). */
  threshold: number;
  windowMs: number;
  /** Calls the window must hold before the rate counts. */
  minRequests: number;
  recoveryMs: number;
}

export function errorRateSettingsOf(e: z.infer<typeof errorRateEnvSchema>, recoveryMs: number): ErrorRateSettings {
  return { threshold: e.ENFORCE_CB_ERROR_THRESHOLD, windowMs: e.ENFORCE_CB_WINDOW_SECONDS * 1000, minRequests: e.ENFORCE_CB_MIN_REQUESTS, recoveryMs };
}

const countedFailures = new Set(['execution', 'network', 'outcome_unknown']);

export interface ErrorRateBreakers {
  /** Runs one call of `tool` under its breaker; an open one answers circuit_open without calling. */
  run(tool: string, call: () => Promise<ToolOutcome>): Promise<ToolOutcome>;
}

export function errorRateBreakers(settings: ErrorRateSettings): ErrorRateBreakers {
  const breakers = new Map<string, CircuitBreakerPolicy>();
  const breakerFor = (tool: string) => {
    let breaker = breakers.get(tool);
    if (!breaker) {
      breaker = circuitBreaker(
        handleWhenResult((outcome) => !(outcome as ToolOutcome).ok && countedFailures.has((outcome as Extract<ToolOutcome, { ok: false }>).error.category)),
        {
          halfOpenAfter: settings.recoveryMs,
          breaker: new SamplingBreaker({
            threshold: settings.threshold,
            duration: settings.windowMs,
            minimumRps: settings.minRequests / (settings.windowMs / 1000),
          }),
        },
      );
      breakers.set(tool, breaker);
    }
    return breaker;
  };
  return {
    async run(tool, call) {
      try {
        return await breakerFor(tool).execute(call);
      } catch (err) {
        if (!(err instanceof BrokenCircuitError)) throw err;
        const message = `${tool} is failing (over ${Math.round(settings.threshold * 100)} % of its calls in ${settings.windowMs / 1000} s); its circuit is open, calls resume after ${settings.recoveryMs / 1000} s`;
        return { ok: false, error: { category: 'circuit_open', message } };
      }
    },
  };
}
