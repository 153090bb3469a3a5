import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createSocketServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
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
  sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize: 1 });
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
      [
        `try:`,
        ...snippet.split('\n').map((line) => `    ${line}`),
        `except BaseException as e:`,
        `    print(${JSON.stringify(name)}, 'blocked:', type(e).__name__)`,
      ].join('\n'),
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

it("has no network: sockets, fetch, DNS and the host's own ports are unreachable", async () => {
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

it("cannot write or read host files, read secrets from the environment, or start processes, even through the host's JavaScript objects", async () => {
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
  const bomb = await sandbox
    .run('blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))', { timeoutMs: 20_000, memoryMb: 300 })
    .catch((err: unknown) => err);
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

/** Runs JavaScript inside the sandbox's own process (pyodide's FFI), as a hostile program would, and prints its verdict. */
const viaJs = (name: string, promise: string) =>
  `from pyodide.code import run_js\nprint(${JSON.stringify(name)}, await run_js(${JSON.stringify(`(async () => { try { return await (${promise}); } catch (e) { return 'blocked: ' + (e.code || e.message); } })()`)}))`;

const connectTo = (socketPath: string) =>
  `new Promise((resolve) => { const s = process.mainModule.require('net').createConnection(${JSON.stringify(socketPath)}); s.on('connect', () => resolve('ESCAPED')); s.on('error', (e) => resolve('blocked: ' + e.code)); setTimeout(() => resolve('blocked: no answer'), 2000); })`;

it("reaches nothing on the machine: host sockets, signals, /proc, /etc, /sys, the host's /tmp, inherited descriptors", async () => {
  // The test database's own Unix socket, as the test setup reaches it.
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const socketDir = (await db.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories')).rows[0]!.unix_socket_directories.split(
    ',',
  )[0]!.trim();
  const port = (await db.query<{ port: string }>('SHOW port')).rows[0]!.port;
  await db.end();
  const pgSocket = `${socketDir}/.s.PGSQL.${port}`;
  expect(existsSync(pgSocket)).toBe(true);
  // An abstract-namespace socket on the host, and another host process to aim signals at.
  const abstractName = `\0weft-escape-${process.pid}`;
  const abstract = createSocketServer((socket) => socket.end('secret'));
  await new Promise<void>((resolve) => abstract.listen(abstractName, resolve));
  const bystander = spawn('sleep', ['60']);
  const hostTmp = mkdtempSync(path.join(tmpdir(), 'weft-host-tmp-'));
  writeFileSync(path.join(hostTmp, 'secret.txt'), 'host-secret');
  // A descriptor the host holds open: nothing the sandbox reads may yield it.
  const held = openSync(path.join(hostTmp, 'secret.txt'), 'r');
  try {
    const results = await attempt({
      pgsocket: viaJs('pgsocket', connectTo(pgSocket)),
      abstract: viaJs('abstract', connectTo(abstractName)),
      killparent: viaJs(
        'killparent',
        `Promise.resolve(process.kill(process.ppid, 'SIGKILL')).then(() => process.ppid > 1 ? 'ESCAPED' : 'blocked: the parent is the sandbox init')`,
      ),
      killhost: viaJs('killhost', `Promise.resolve(process.kill(${bystander.pid}, 'SIGKILL')).then(() => 'ESCAPED')`),
      ptrace: viaJs('ptrace', `Promise.resolve(process._debugProcess(${process.pid})).then(() => 'ESCAPED')`),
      procenv: viaJs('procenv', `Promise.resolve(process.mainModule.require('fs').readFileSync('/proc/1/environ', 'utf8')).then(() => 'ESCAPED')`),
      pyprocenv: "print('pyprocenv', 'ESCAPED' if open('/proc/1/environ', 'rb').read() else 'blocked: empty')",
      passwd: viaJs('passwd', `Promise.resolve(process.mainModule.require('fs').readFileSync('/etc/passwd', 'utf8')).then(() => 'ESCAPED')`),
      sys: viaJs('sys', `Promise.resolve(process.mainModule.require('fs').readdirSync('/sys')).then(() => 'ESCAPED')`),
      hosttmp: viaJs(
        'hosttmp',
        `Promise.resolve(process.mainModule.require('fs').readFileSync(${JSON.stringify(path.join(hostTmp, 'secret.txt'))}, 'utf8')).then(() => 'ESCAPED')`,
      ),
      fds: viaJs(
        'fds',
        `Promise.resolve((() => { const fs = process.mainModule.require('fs'); for (let fd = 3; fd < 256; fd++) { try { const b = Buffer.alloc(64); const n = fs.readSync(fd, b, 0, 64, 0); if (b.subarray(0, n).toString().includes('host-secret')) return 'ESCAPED'; } catch {} } return 'blocked: no host descriptor'; })())`,
      ),
    });
    for (const [name, line] of Object.entries(results)) expect([name, line]).not.toEqual([name, expect.stringContaining('ESCAPED')]);
    for (const name of ['pgsocket', 'abstract', 'killparent', 'killhost', 'ptrace', 'procenv', 'pyprocenv', 'passwd', 'sys', 'hosttmp', 'fds'])
      expect([name, results[name]]).toEqual([name, expect.stringMatching(/blocked/)]);
  } finally {
    abstract.close();
  }
  // The host process, the database and the sandbox are all still well.
  expect(bystander.exitCode).toBeNull();
  expect(bystander.kill()).toBe(true);
  const after = new Client({ connectionString: process.env.DATABASE_URL });
  await after.connect();
  expect((await after.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  await after.end();
  expect((await sandbox.run('print(6 * 7)', limits)).stdout).toBe('42\n');
  void held;
});

it('gives a program the session workspace under /data, and keeps its writes to itself', async () => {
  const result = await sandbox.run(
    [
      "print(open('/data/notes/plan.txt').read())",
      "open('/data/notes/plan.txt', 'w').write('changed')",
      "open('/tmp/scratch.txt', 'w').write('mine')",
      "print(open('/data/notes/plan.txt').read(), open('/tmp/scratch.txt').read())",
    ].join('\n'),
    { ...limits, files: [{ path: 'notes/plan.txt', content: Buffer.from('the plan') }] },
  );
  expect(result).toMatchObject({ stdout: 'the plan\nchanged mine\n' });
  // The next program starts from nothing: the earlier one's writes died with its process.
  const next = await sandbox.run("import os\nprint(os.path.exists('/data/notes/plan.txt'), os.path.exists('/tmp/scratch.txt'))", limits);
  expect(next.stdout).toBe('False False\n');
});
