// One Python sandbox process (see python-sandbox.ts, which starts it): loads CPython compiled to
// WebAssembly (pyodide), says it is ready, runs exactly one program read from stdin, answers, and
// exits. It runs in a bubblewrap container (bubblewrap.ts) under Node's permission model (reads of
// the interpreter only; no writes, no child processes, no workers), with an empty environment.
// Plain JavaScript because the permission model allows it to read nothing else (not even a TS
// loader). The program's allowed data files arrive with it and are placed under /data in the
// interpreter's in-memory file system: whatever it writes, there or anywhere, dies with it.
'use strict';
const fsConstants = require('node:fs').constants;
// Pyodide reads fs flag constants through process.binding, which the permission model forbids.
process.binding = (name) => {
  if (name === 'constants') return { fs: fsConstants };
  throw new Error('process.binding is not available in the sandbox');
};
const { loadPyodide } = require(process.argv[2]);
const outputLimit = Number(process.argv[3]);
// 'snapshot': load, preload, and write a memory snapshot of that state to stdout (snapshot.ts);
// a path: start from that snapshot instead of loading the interpreter from scratch.
const start = process.argv[4];
// Modules agents use most, loaded before any program, so a warm program's imports are lookups.
const preload = 'import json, math, statistics, re, datetime, collections, itertools, functools, random, decimal, fractions, csv, io, string, textwrap';

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

// A little of everything a typical program does, run while the process waits: a restored
// interpreter compiles its WebAssembly lazily, and this pays for it before any program is timed.
const warmUp = `${preload}\nprint(json.dumps({'x': statistics.mean([1.5, 2]), 'r': re.sub('a', 'b', 'aa')}))`;

async function load() {
  if (start && start !== 'snapshot') {
    const restored = await loadPyodide({ _loadSnapshot: require('node:fs').readFileSync(start) });
    restored.setStdout({ write: (bytes) => bytes.length });
    await restored.runPythonAsync(warmUp);
    return restored;
  }
  const pyodide = await loadPyodide(start === 'snapshot' ? { _makeSnapshot: true } : {});
  pyodide.runPython(preload);
  return pyodide;
}

async function main() {
  const pyodide = await load();
  if (start === 'snapshot') {
    process.stdout.write(pyodide.makeMemorySnapshot(), () => process.exit(0));
    return;
  }
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
  const { code, files = [] } = JSON.parse(input);
  for (const file of files) {
    const target = `/data/${file.path}`;
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf('/')));
    pyodide.FS.writeFile(target, Buffer.from(file.content, 'base64'));
  }
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
