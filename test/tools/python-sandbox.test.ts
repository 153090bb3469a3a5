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

it("has no network: sockets, HTTP, DNS and the host's own ports are unreachable", async () => {
  const results = await attempt({
    socket: "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)\nprint('socket ESCAPED')",
    host: `import socket\nsocket.create_connection(('127.0.0.1', ${hostPort}), timeout=2)\nprint('host ESCAPED')`,
    dns: "import socket\nsocket.create_connection(('example.com', 80), timeout=2)\nprint('dns ESCAPED')",
    urllib: `import urllib.request\nurllib.request.urlopen('http://127.0.0.1:${hostPort}/', timeout=2)\nprint('urllib ESCAPED')`,
  });
  for (const name of ['socket', 'host', 'dns', 'urllib']) expect(results[name]).toMatch(/blocked/);
  expect(hostHits).toBe(0);
});

it('cannot write or read host files, read secrets from the environment, or start processes', async () => {
  const target = mkdtempSync(path.join(tmpdir(), 'weft-escape-'));
  process.env.WEFT_TEST_SECRET = 'hunter2';
  const results = await attempt({
    pywrite: `open(${JSON.stringify(path.join(target, 'py.txt'))}, 'w').write('x')\nimport os\nprint('pywrite', 'in-memory only' if True else '')`,
    pyread: "print('pyread ESCAPED' if 'root:' in open('/etc/passwd').read() else 'pyread blocked: not the host file')",
    env: "import os\nprint('env ESCAPED' if os.environ.get('WEFT_TEST_SECRET') else 'env blocked: empty')",
    procenv: "print('procenv ESCAPED' if b'WEFT_TEST_SECRET' in open('/proc/self/environ', 'rb').read() else 'procenv blocked: empty')",
    hostname: "print('hostname ESCAPED', open('/etc/hostname').read())",
    subprocess: "import subprocess\nsubprocess.run(['id'])\nprint('subprocess ESCAPED')",
    system: "import os\nprint('system ESCAPED' if os.system('id') == 0 else 'system blocked: failed')",
    exec: "import os\nos.execv('/usr/bin/python3', ['python3', '-c', 'print(1)'])\nprint('exec ESCAPED')",
    spawn: "import os\nos.posix_spawn('/usr/bin/python3', ['python3', '-c', 'print(1)'], {})\nprint('spawn ESCAPED')",
  });
  delete process.env.WEFT_TEST_SECRET;
  for (const [name, line] of Object.entries(results)) expect([name, line]).not.toEqual([name, expect.stringContaining('ESCAPED')]);
  for (const name of ['pyread', 'env', 'procenv', 'hostname', 'subprocess', 'system', 'exec', 'spawn']) expect(results[name]).toMatch(/blocked/);
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

/** A Python snippet that connects a Unix socket to `address` and says whether it got through. */
const connectTo = (name: string, address: string) =>
  `import socket\ns = socket.socket(socket.AF_UNIX)\ns.settimeout(2)\ns.connect(${JSON.stringify(address)})\nprint(${JSON.stringify(name)}, 'ESCAPED')`;

it("reaches nothing on the machine: host sockets, signals, tracing, /proc, /etc, /sys, the host's /tmp, inherited descriptors", async () => {
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
      pgsocket: connectTo('pgsocket', pgSocket),
      abstract: connectTo('abstract', abstractName),
      // The program is its namespace's first process: it has no parent it can see.
      killparent: "import os\nppid = os.getppid()\nprint('killparent', 'blocked: no parent in sight' if ppid == 0 else 'ESCAPED')",
      killhost: `import os\nos.kill(${bystander.pid}, 9)\nprint('killhost ESCAPED')`,
      ptrace: `import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint('ptrace', 'ESCAPED' if libc.ptrace(16, ${process.pid}, 0, 0) == 0 else 'blocked: errno ' + str(ctypes.get_errno()))`,
      // bwrap sets PWD; nothing else of any environment reaches the program.
      procenv:
        "names = [v.split(b'=')[0] for v in open('/proc/1/environ', 'rb').read().split(b'\\0') if v]\nprint('procenv', 'blocked: only PWD' if names == [b'PWD'] else 'ESCAPED')",
      passwd: "open('/etc/passwd').read()\nprint('passwd ESCAPED')",
      sys: "import os\nos.listdir('/sys')\nprint('sys ESCAPED')",
      hosttmp: `open(${JSON.stringify(path.join(hostTmp, 'secret.txt'))}).read()\nprint('hosttmp ESCAPED')`,
      fds: "import os\nfound = False\nfor fd in range(3, 256):\n    try:\n        found = found or b'host-secret' in os.pread(fd, 64, 0)\n    except OSError:\n        pass\nprint('fds', 'ESCAPED' if found else 'blocked: no host descriptor')",
    });
    for (const [name, line] of Object.entries(results)) expect([name, line]).not.toEqual([name, expect.stringContaining('ESCAPED')]);
    for (const name of ['pgsocket', 'abstract', 'killparent', 'killhost', 'ptrace', 'procenv', 'passwd', 'sys', 'hosttmp', 'fds'])
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
