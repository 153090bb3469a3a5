import { calculate } from '../../core/tools/builtin/calculator';
import { ToolError } from '../../core/tools/tool';

describe('calculator', () => {
  it.each([
    ['(2 + 3) * 4', 20],
    ['2 ^ 10', 1024],
    ['2 ^ 3 ^ 2', 512],
    ['-3 + +5', 2],
    ['10 % 4', 2],
    ['sqrt(16) + abs(-2)', 6],
    ['max(1, 7, 3)', 7],
    ['round(pi * 100) / 100', 3.14],
  ])('%s = %d', (expression, value) => {
    expect(calculate(expression)).toBeCloseTo(value);
  });

  it.each([
    ['constructor', /unknown symbol/],
    ['process.exit(1)', /unsupported syntax|unsupported function/],
    ['this', /unknown symbol|unsupported/],
    ['"text"', /only numbers/],
    ['x = 3', /cannot parse/],
    ['require("fs")', /unsupported function/],
    ['[1, 2]', /cannot parse|unsupported/],
    ['1 / 0', /finite/],
    ['1 +', /cannot parse/],
    ['9'.repeat(501), /longer than/],
  ])('refuses %s', (expression, message) => {
    expect(() => calculate(expression)).toThrow(ToolError);
    expect(() => calculate(expression)).toThrow(message);
  });
});
