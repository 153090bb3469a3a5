import { gateFailures, parseGate, scoreFloor, type GateFigures } from '../../core/eval/gate';

// The gate fails a run on the conditions that hold, with the figures that made them hold.

const figures: GateFigures = {
  score: 0.8,
  failed: 0,
  candidate: { cost: 0.3, tokens: 900, latency: 5000 },
  recorded: { cost: 0.2, tokens: 1000, latency: 4000 },
};

it('fails on any group whose conditions all hold; ratios are to the recorded figures', () => {
  expect(gateFailures(parseGate('score<0.9 || cost>1.2x'), figures)).toEqual(['score<0.9 (score 0.8000)', 'cost>1.2x (cost 1.50x)']);
  expect(gateFailures(parseGate('score<0.7 || tokens>1x'), figures)).toEqual([]);
  expect(gateFailures(parseGate('score < 0.9 && latency >= 1.25x'), figures)).toEqual(['score < 0.9 (score 0.8000) && latency >= 1.25x (latency 1.25x)']);
  expect(gateFailures(parseGate('score<0.9 && failed>0'), figures)).toEqual([]);
  expect(gateFailures(parseGate('cost>0.25'), figures)).toEqual(['cost>0.25 (cost 0.3000)']);
});

it('a ratio to a recorded zero is infinite unless the candidate is zero too', () => {
  const free = { ...figures, recorded: { ...figures.recorded, cost: 0 } };
  expect(gateFailures(parseGate('cost>1.2x'), free)).toEqual(['cost>1.2x (cost Infinityx)']);
  expect(gateFailures(parseGate('cost>1.2x'), { ...free, candidate: { ...free.candidate, cost: 0 } })).toEqual([]);
});

it('refuses what is not a condition, naming it', () => {
  expect(() => parseGate('score<0.9 || speed>2')).toThrow('--fail-on: unknown metric "speed" (one of score, cost, tokens, latency, failed)');
  expect(() => parseGate('score<<0.9')).toThrow('--fail-on: "score<<0.9" is not a condition like score<0.9 or cost>1.2x');
  expect(() => parseGate('score<0.9x')).toThrow('--fail-on: score has no recorded figure to be a ratio of; give a number');
  expect(() => parseGate('')).toThrow('--fail-on: "" is not a condition');
});

it("a case needs the gate's score floor to pass in JUnit", () => {
  expect(scoreFloor(parseGate('score<0.9 || cost>1.2x'))).toBe(0.9);
  expect(scoreFloor(parseGate('cost>1.2x'))).toBeUndefined();
});
