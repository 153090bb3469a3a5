// An eval's gate (`--fail-on "score<0.9 || cost>1.2x"`): conditions on the eval's totals, any of
// which fails the run. A condition is `<metric> <op> <number>`; a number ending in `x` is a ratio
// to the recorded tasks' total of that metric. `&&` binds tighter than `||`.

export const gateMetrics = ['score', 'cost', 'tokens', 'latency', 'failed'] as const;
export type GateMetric = (typeof gateMetrics)[number];

/** What the gate judges: the candidate's figures, and the recorded tasks' (none for score and failed). */
export interface GateFigures {
  /** Mean score, 0..1. */
  score: number;
  /** Cases whose task did not complete. */
  failed: number;
  candidate: { cost: number; tokens: number; latency: number };
  recorded: { cost: number; tokens: number; latency: number };
}

type Op = '<' | '<=' | '>' | '>=' | '==';

interface Condition {
  text: string;
  metric: GateMetric;
  op: Op;
  value: number;
  ratio: boolean;
}

/** Any-of groups of all-of conditions. */
export type Gate = Condition[][];

const conditionPattern = /^([a-z]+)\s*(<=|>=|==|<|>)\s*(\d+(?:\.\d+)?|\.\d+)(x?)$/;

function conditionOf(text: string): Condition {
  const found = conditionPattern.exec(text);
  if (!found) throw new Error(`--fail-on: "${text}" is not a condition like score<0.9 or cost>1.2x`);
  const [, metric, op, value, ratio] = found;
  if (!gateMetrics.includes(metric as GateMetric)) throw new Error(`--fail-on: unknown metric "${metric}" (one of ${gateMetrics.join(', ')})`);
  if (ratio && (metric === 'score' || metric === 'failed')) throw new Error(`--fail-on: ${metric} has no recorded figure to be a ratio of; give a number`);
  return { text, metric: metric as GateMetric, op: op as Op, value: Number(value), ratio: ratio === 'x' };
}

export function parseGate(expression: string): Gate {
  return expression.split('||').map((group) =>
    group
      .split('&&')
      .map((part) => part.trim())
      .map(conditionOf),
  );
}

function figureOf(condition: Condition, figures: GateFigures): number {
  if (condition.metric === 'score' || condition.metric === 'failed') return figures[condition.metric];
  const candidate = figures.candidate[condition.metric];
  if (!condition.ratio) return candidate;
  const recorded = figures.recorded[condition.metric];
  if (recorded === 0) return candidate === 0 ? 1 : Infinity;
  return candidate / recorded;
}

const compare = {
  '<': (a: number, b: number) => a < b,
  '<=': (a: number, b: number) => a <= b,
  '>': (a: number, b: number) => a > b,
  '>=': (a: number, b: number) => a >= b,
  '==': (a: number, b: number) => a === b,
};

const shown = (figure: number, ratio: boolean) => (ratio ? `${figure.toFixed(2)}x` : Number.isInteger(figure) ? String(figure) : figure.toFixed(4));

/** The groups that hold, each as the conditions it met with their figures; empty: the gate passes. */
export function gateFailures(gate: Gate, figures: GateFigures): string[] {
  return gate
    .map((group) => group.map((condition) => ({ condition, figure: figureOf(condition, figures) })))
    .filter((group) => group.every(({ condition, figure }) => compare[condition.op](figure, condition.value)))
    .map((group) => group.map(({ condition, figure }) => `${condition.text} (${condition.metric} ${shown(figure, condition.ratio)})`).join(' && '));
}

/** The least score the gate lets a case have (its `score<N` or `score<=N` condition), if it has one: what a case needs to pass in JUnit. */
export function scoreFloor(gate: Gate): number | undefined {
  const floors = gate.flat().filter((c) => c.metric === 'score' && (c.op === '<' || c.op === '<='));
  return floors.length > 0 ? Math.max(...floors.map((c) => c.value)) : undefined;
}
