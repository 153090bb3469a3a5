import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPythonSandbox, type PythonSandbox } from '../../core/tools/python/python-sandbox';
import { ToolError } from '../../core/tools/tool';

// The escape suite: every attempt must fail inside the sandbox (the program reports how) while the
// host keeps working. Each program prints one line per attempt; "ESCAPED" means the sandbox failed.

let sandbox: PythonSandbox;
let host: Server;
let hostPort: number;
let hostHits = 0;
const limits = { timeoutMs: 20_000, memoryMb: 512 };

beforeAll(async () => {
  sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024 });
  host = createServer((_req, res) => {
    hostHits += 1;
    res.end('secret');
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostPort = (host.address() as AddressInfo).port;
});
afterAll(async () => {
  sandbox.close();
  await new Promise((resolve) => host.close(resolve));
});

/** Runs attempts, each a Python snippet that prints ESCAPED if it got out. */
async function attempt(snippets: Record<string, string>): Promise<Record<string, string>> {
  const program = Object.entries(snippets)
    .map(([name, snippet]) =>
      [`try:`, ...snippet.split('\n').map((line) => `    ${line}`), `except BaseException as e:`, `    print(${JSON.stringify(name)}, 'blocked:', type(e).__name__)`].join('\n'),
    )
    .join('\n');
  const result = await sandbox.run(program, limits);
  expect(result.error).toBeUndefined();
  return Object.fromEntries(
    result.stdout
      .trim()
      .split('\n')
      .map((line) => [line.split(' ')[0]!, line]),
  );
}

it('runs Python and returns what it printed, with errors as tracebacks', async () => {
  const ok = await sandbox.run('import json, statistics\nprint(json.dumps({"mean": statistics.mean([1, 2, 3, 4])}))', limits);
  expect(ok).toEqual({ stdout: '{"mean": 2.5}\n', stderr: '', truncated: false });
  const raised = await sandbox.run('print("before")\n1 / 0', limits);
  expect(raised.stdout).toBe('before\n');
  expect(raised.error).toContain('ZeroDivisionError: division by zero');
  const chatty = await sandbox.run('print("x" * 200_000)', limits);
  expect(chatty.truncated).toBe(true);
  expect(chatty.stdout.length).toBe(64 * 1024);
});

it('has no network: sockets, fetch, DNS and the host\'s own ports are unreachable', async () => {
  const results = await attempt({
    socket: "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)\nprint('socket ESCAPED')",
    host: `import socket\nsocket.create_connection(('127.0.0.1', ${hostPort}), timeout=2)\nprint('host ESCAPED')`,
    // Name lookups are emulated inside WebAssembly (synthetic answers); nothing they return is reachable.
    dns: "import socket\nsocket.create_connection(('example.com', 80), timeout=2)\nprint('dns ESCAPED')",
    urllib: `import urllib.request\nurllib.request.urlopen('http://127.0.0.1:${hostPort}/', timeout=2)\nprint('urllib ESCAPED')`,
  });
  for (const name of ['socket', 'host', 'dns', 'urllib']) expect(results[name]).toMatch(/blocked/);
  const viaJs = await sandbox.run(`import js\nr = await js.fetch('http://127.0.0.1:${hostPort}/')\nprint('fetch ESCAPED', await r.text())`, limits);
  expect(viaJs.stdout).not.toContain('ESCAPED');
  expect(viaJs.error).toContain('fetch failed');
  expect(hostHits).toBe(0);
});

it('cannot write or read host files, read secrets from the environment, or start processes, even through the host\'s JavaScript objects', async () => {
  const target = mkdtempSync(path.join(tmpdir(), 'weft-escape-'));
  process.env.WEFT_TEST_SECRET = 'hunter2';
  const results = await attempt({
    pywrite: `open(${JSON.stringify(path.join(target, 'py.txt'))}, 'w').write('x')\nimport os\nprint('pywrite', 'in-memory only' if True else '')`,
    pyread: "print('pyread ESCAPED' if 'root:' in open('/etc/passwd').read() else 'pyread blocked: not the host file')",
    env: "import os\nprint('env ESCAPED' if os.environ.get('WEFT_TEST_SECRET') else 'env blocked: empty')",
    jsenv: "import js\nprint('jsenv ESCAPED' if js.process.env.WEFT_TEST_SECRET else 'jsenv blocked: empty')",
    jswrite: `import js\njs.process.mainModule.require('fs').writeFileSync(${JSON.stringify(path.join(target, 'js.txt'))}, 'x')\nprint('jswrite ESCAPED')`,
    jsread: "import js\nprint('jsread ESCAPED', js.process.mainModule.require('fs').readFileSync('/etc/hostname', 'utf8'))",
    spawn: "import js\nprint('spawn ESCAPED', js.process.mainModule.require('child_process').execSync('id').toString())",
    subprocess: "import subprocess\nsubprocess.run(['id'])\nprint('subprocess ESCAPED')",
    worker: "import js\njs.process.mainModule.require('worker_threads').Worker.new('1')\nprint('worker ESCAPED')",
    binding: "import js\njs.process.binding('spawn_sync')\nprint('binding ESCAPED')",
  });
  delete process.env.WEFT_TEST_SECRET;
  for (const [name, line] of Object.entries(results)) expect([name, line]).not.toEqual([name, expect.stringContaining('ESCAPED')]);
  for (const name of ['pyread', 'env', 'jsenv', 'jswrite', 'jsread', 'spawn', 'subprocess', 'worker', 'binding']) expect(results[name]).toMatch(/blocked/);
  expect(readdirSync(target)).toEqual([]);
  expect(existsSync(path.join(target, 'py.txt'))).toBe(false);
});

it('kills a memory bomb and an endless loop, and the host stays healthy', async () => {
  const bomb = await sandbox.run('blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))', { timeoutMs: 20_000, memoryMb: 300 }).catch((err: unknown) => err);
  expect(bomb).toBeInstanceOf(ToolError);
  expect((bomb as ToolError).message).toMatch(/exceeded its memory limit of 300 MB|MemoryError/);

  const startedAt = Date.now();
  const endless = await sandbox.run('while True:\n    pass', { timeoutMs: 1_000, memoryMb: 512 }).catch((err: unknown) => err);
  expect(endless).toBeInstanceOf(ToolError);
  expect((endless as ToolError).message).toBe('the Python program timed out after 1000 ms');
  expect(Date.now() - startedAt).toBeLessThan(10_000);

  // The host still answers, and the sandbox still runs programs.
  expect(await (await fetch(`http://127.0.0.1:${hostPort}/`)).text()).toBe('secret');
  expect((await sandbox.run('print(6 * 7)', limits)).stdout).toBe('42\n');
});
