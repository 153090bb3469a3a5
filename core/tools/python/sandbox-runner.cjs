// One Python sandbox process (see python-sandbox.ts, which starts it): loads CPython compiled to
// WebAssembly (pyodide), says it is ready, runs exactly one program read from stdin, answers, and
// exits. It runs under Node's permission model (reads of the interpreter only; no writes, no child
// processes, no workers) inside its own network namespace, with an empty environment. Plain
// JavaScript because the permission model allows it to read nothing else (not even a TS loader).
'use strict';
const fsConstants = require('node:fs').constants;
// Pyodide reads fs flag constants through process.binding, which the permission model forbids.
process.binding = (name) => {
  if (name === 'constants') return { fs: fsConstants };
  throw new Error('process.binding is not available in the sandbox');
};
const { loadPyodide } = require(process.argv[2]);
const outputLimit = Number(process.argv[3]);

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
// stdout carries only the protocol; anything the interpreter logs goes to stderr.
console.log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

function capture() {
  const text = { chunks: [], size: 0, truncated: false };
  return {
    text,
    write(bytes) {
      const written = bytes.length;
      if (text.size + bytes.length > outputLimit) {
        text.truncated = true;
        bytes = bytes.subarray(0, Math.max(0, outputLimit - text.size));
      }
      text.chunks.push(Buffer.from(bytes));
      text.size += bytes.length;
      // All of it counts as written, or Python would keep retrying what was cut.
      return written;
    },
    value: () => Buffer.concat(text.chunks).toString('utf8'),
  };
}

async function main() {
  const pyodide = await loadPyodide();
  // Modules agents use most, loaded while the process waits, so a warm program's imports are lookups.
  pyodide.runPython('import json, math, statistics, re, datetime, collections, itertools, functools, random, decimal, fractions, csv, io, string, textwrap');
  const stdout = capture();
  const stderr = capture();
  pyodide.setStdout({ write: (bytes) => stdout.write(bytes) });
  pyodide.setStderr({ write: (bytes) => stderr.write(bytes) });
  send({ ready: true });
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    input += chunk;
    if (input.includes('\n')) break;
  }
  if (!input.includes('\n')) process.exit(0); // the host went away before sending a program
  const { code } = JSON.parse(input);
  let error;
  try {
    await pyodide.runPythonAsync(code);
  } catch (err) {
    error = String(err && err.message ? err.message : err);
  }
  send({ stdout: stdout.value(), stderr: stderr.value(), truncated: stdout.text.truncated || stderr.text.truncated, ...(error ? { error } : {}) });
  process.exit(0);
}

main().catch((err) => {
  send({ failed: String(err && err.stack ? err.stack : err) });
  process.exit(1);
});
