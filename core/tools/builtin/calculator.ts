import jsep from 'jsep';
import { ToolError, toolMetadata, type ToolDefinition } from '../tool';

// Arithmetic through jsep's expression parser, never eval: the parse tree is evaluated here and only
// numbers, + - * / % ^, parentheses, a fixed set of Math functions and the constants pi and e exist.
// Anything else (member access, strings, assignments, unknown names) is refused, and a length cap
// bounds the work.

jsep.removeAllBinaryOps();
jsep.removeAllUnaryOps();
jsep.removeAllLiterals();
jsep.addBinaryOp('+', 9);
jsep.addBinaryOp('-', 9);
jsep.addBinaryOp('*', 10);
jsep.addBinaryOp('/', 10);
jsep.addBinaryOp('%', 10);
jsep.addBinaryOp('^', 11, true);
jsep.addBinaryOp('**', 11, true);
jsep.addUnaryOp('-');
jsep.addUnaryOp('+');

// Maps, not object literals: a name like "constructor" must not find Object.prototype's.
const functions = new Map<string, (...args: number[]) => number>(
  Object.entries({
    sqrt: Math.sqrt,
    abs: Math.abs,
    round: Math.round,
    floor: Math.floor,
    ceil: Math.ceil,
    log: Math.log,
    log10: Math.log10,
    log2: Math.log2,
    exp: Math.exp,
    sin: Math.sin,
    cos: Math.cos,
    tan: Math.tan,
    min: Math.min,
    max: Math.max,
    pow: Math.pow,
  }),
);
const constants = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
]);
const binary = new Map<string, (a: number, b: number) => number>(
  Object.entries({
    '+': (a: number, b: number) => a + b,
    '-': (a: number, b: number) => a - b,
    '*': (a: number, b: number) => a * b,
    '/': (a: number, b: number) => a / b,
    '%': (a: number, b: number) => a % b,
    '^': (a: number, b: number) => a ** b,
    '**': (a: number, b: number) => a ** b,
  }),
);
const maxExpressionLength = 500;

function evaluate(node: jsep.Expression): number {
  switch (node.type) {
    case 'Literal':
      if (typeof node.value !== 'number') throw new ToolError('validation', 'only numbers are allowed');
      return node.value;
    case 'Identifier': {
      const value = constants.get(node.name as string);
      if (value === undefined) throw new ToolError('validation', `unknown symbol: ${String(node.name)}`);
      return value;
    }
    case 'UnaryExpression': {
      const operand = evaluate(node.argument as jsep.Expression);
      return node.operator === '-' ? -operand : operand;
    }
    case 'BinaryExpression': {
      const apply = binary.get(node.operator as string)!;
      return apply(evaluate(node.left as jsep.Expression), evaluate(node.right as jsep.Expression));
    }
    case 'CallExpression': {
      const callee = node.callee as jsep.Expression;
      const fn = callee.type === 'Identifier' ? functions.get(callee.name as string) : undefined;
      if (!fn) throw new ToolError('validation', `unsupported function: ${callee.type === 'Identifier' ? String(callee.name) : callee.type}`);
      return fn(...(node.arguments as jsep.Expression[]).map(evaluate));
    }
    default:
      throw new ToolError('validation', `unsupported syntax: ${node.type}`);
  }
}

export function calculate(expression: string): number {
  if (expression.length > maxExpressionLength) throw new ToolError('validation', `expression longer than ${maxExpressionLength} characters`);
  let tree: jsep.Expression;
  try {
    tree = jsep(expression);
  } catch (err) {
    throw new ToolError('validation', `cannot parse expression: ${(err as Error).message}`);
  }
  const value = evaluate(tree);
  if (!Number.isFinite(value)) throw new ToolError('execution', 'expression does not evaluate to a finite number');
  return value;
}

export const calculatorTool: ToolDefinition = {
  ...toolMetadata({
    name: 'calculator',
    version: '1.0.0',
    description: 'Evaluates an arithmetic expression (+ - * / % ^, parentheses, sqrt, abs, round, log, exp, sin, cos, tan, min, max, pow, pi, e).',
    category: 'math',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string', minLength: 1, description: 'e.g. "(2 + 3) * 4"' } },
      required: ['expression'],
      additionalProperties: false,
    },
    timeoutMs: 1_000,
    rateLimitPerMinute: 2_000,
  }),
  async execute(args) {
    return { value: calculate(String(args.expression)) };
  },
};
