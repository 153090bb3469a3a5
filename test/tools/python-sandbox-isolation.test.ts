import { existsSync } from 'node:fs';
import { Registry } from 'prom-client';
import { createPythonSandbox, type PythonSandbox } from '../../core/tools/python/python-sandbox';
import { watchSandboxPool } from '../../core/tools/python/sandbox-metrics';
import { ToolError } from '../../core/tools/tool';

// What each program may count on from its sandbox, and what it cannot do to the next one: its own
// random state and hash seed, nothing left behind, a seccomp filter that refuses every system call
// it denies, limits that end a runaway program with a clear error, and a pool that stays warm.

let sandbox: PythonSandbox;
const poolSize = 2;
const limits = { timeoutMs: 10_000, memoryMb: 256 };

beforeAll(async () => {
  sandbox = createPythonSandbox({ outputLimitBytes: 64 * 1024, poolSize });
  await sandbox.prewarm();
});
afterAll(() => sandbox.close());

const run = (code: string, caps: Partial<typeof limits> = {}) => sandbox.run(code, { ...limits, ...caps });
const failure = (code: string, caps: Partial<typeof limits> = {}) =>
  run(code, caps).then(
    (result) => result.error ?? `no error: ${JSON.stringify(result)}`,
    (err: unknown) => (err instanceof ToolError ? `ToolError: ${err.message}` : `not a ToolError: ${String(err)}`),
  );

it('gives every program its own random state and hash seed', async () => {
  const program = "import random\nprint(random.random(), hash('x'), hash(b'y'))";
  const outputs = [];
  for (let i = 0; i < 3; i += 1) outputs.push((await run(program)).stdout.trim().split(' '));
  for (const column of [0, 1, 2]) expect(new Set(outputs.map((output) => output[column])).size).toBe(3);
});

it('leaves nothing of one program for the next: /tmp, /data and the working directory start empty', async () => {
  const wrote = await run(
    "import os\nfor path in ('/tmp/left.txt', '/data/left.txt', 'cwd.txt'):\n    open(path, 'w').write('x')\nprint(sorted(os.listdir('/tmp')), os.listdir('/data'))",
  );
  expect(wrote.stdout).toBe("['cwd.txt', 'left.txt'] ['left.txt']\n");
  const next = await run("import os\nprint(os.listdir('/tmp'), os.listdir('/data'), os.getcwd())");
  expect(next.stdout).toBe('[] [] /tmp\n');
});

// x86_64 system call numbers: each is tried with ctypes, as a hostile program would. The arguments
// are such that without the filter most calls would succeed (socket, fork, clone, process_vm_readv
// on itself) or fail otherwise (EFAULT, EINVAL): EPERM is the filter's answer.
const denied: Record<string, [number, ...number[]]> = {
  socket: [41, 2, 1, 0],
  socketpair_inet: [53, 2, 1, 0, 0],
  sendmsg: [46, 1, 0, 0],
  recvmsg: [47, 0, 0, 0],
  unshare: [272, 0x10000000],
  unshare_net: [272, 0x40000000],
  setns: [308, 0, 0],
  clone_fork: [56, 17, 0, 0, 0, 0],
  clone_newuser: [56, 0x10000000 | 17, 0, 0, 0, 0],
  fork: [57],
  vfork: [58],
  execve: [59, 0, 0, 0],
  execveat: [322, 0, 0, 0, 0, 0],
  mount: [165, 0, 0, 0, 0, 0],
  umount2: [166, 0, 0],
  pivot_root: [155, 0, 0],
  chroot: [161, 0],
  open_tree: [428, 0, 0, 0],
  move_mount: [429, 0, 0, 0, 0, 0],
  fsopen: [430, 0, 0],
  fsmount: [432, 0, 0, 0],
  ptrace: [101, 16, 1, 0, 0],
  process_vm_readv: [310, 1, 0, 0, 0, 0, 0],
  process_vm_writev: [311, 1, 0, 0, 0, 0, 0],
  bpf: [321, 0, 0, 0],
  keyctl: [250, 0, 0, 0, 0, 0],
  add_key: [248, 0, 0, 0, 0, 0],
  request_key: [249, 0, 0, 0, 0],
  userfaultfd: [323, 0],
  io_uring_setup: [425, 8, 0],
  io_uring_enter: [426, 0, 0, 0, 0, 0, 0],
  io_uring_register: [427, 0, 0, 0, 0],
  perf_event_open: [298, 0, 0, -1, -1, 0],
  init_module: [175, 0, 0, 0],
  finit_module: [313, 0, 0, 0],
  kexec_load: [246, 0, 0, 0, 0],
  reboot: [169, 0, 0, 0, 0],
  setuid: [105, 0],
  ioctl_tiocsti: [16, 0, 0x5412, 0],
  prlimit64_other: [302, 2, 7, 0, 0],
  memfd_create: [319, 0, 0],
  pidfd_open: [434, 1, 0],
  name_to_handle_at: [303, 0, 0, 0, 0, 0],
  open_by_handle_at: [304, 0, 0, 0],
  personality: [135, 0xffffffff],
  syslog: [103, 0, 0, 0],
  seccomp: [317, 0, 0, 0],
};

it('refuses, call by call, every system call its seccomp filter denies (and clone3 as not there, so threads use clone)', async () => {
  const calls = { ...denied, clone3: [435, 0, 0] };
  const program = [
    'import ctypes, json',
    'libc = ctypes.CDLL(None, use_errno=True)',
    `calls = json.loads(${JSON.stringify(JSON.stringify(calls))})`,
    'answers = {}',
    'for name, (number, *args) in calls.items():',
    '    ctypes.set_errno(0)',
    '    returned = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(arg) for arg in args])',
    '    answers[name] = [returned, ctypes.get_errno()]',
    "status = dict(line.split(':\\t') for line in open('/proc/self/status').read().splitlines() if ':\\t' in line)",
    "print(json.dumps({'answers': answers, 'seccomp': status['Seccomp'], 'no_new_privs': status['NoNewPrivs']}))",
  ].join('\n');
  const result = await run(program);
  expect(result.error).toBeUndefined();
  const { answers, seccomp, no_new_privs } = JSON.parse(result.stdout) as { answers: Record<string, [number, number]>; seccomp: string; no_new_privs: string };
  expect([seccomp, no_new_privs]).toEqual(['2', '1']);
  const EPERM = 1;
  const ENOSYS = 38;
  for (const name of Object.keys(denied)) expect([name, answers[name]]).toEqual([name, [-1, EPERM]]);
  expect(answers.clone3).toEqual([-1, ENOSYS]);
});

it('still runs what programs need: threads, top-level await (with its socket pair), files, time, classes pickle finds in __main__', async () => {
  const result = await run(
    [
      'import asyncio, concurrent.futures, hashlib, sqlite3, time, zoneinfo, datetime',
      'with concurrent.futures.ThreadPoolExecutor(4) as pool:',
      '    print(sum(pool.map(lambda x: x * x, range(10))))',
      'await asyncio.sleep(0.01)',
      'print(await asyncio.gather(*(asyncio.sleep(0, result=i) for i in range(3))))',
      "print(hashlib.sha256(b'x').hexdigest()[:8], sqlite3.connect(':memory:').execute('select 6 * 7').fetchone()[0])",
      "print(datetime.datetime(2026, 1, 1, tzinfo=zoneinfo.ZoneInfo('Europe/Paris')).utcoffset())",
      // The program is __main__, where pickle looks its classes up.
      'import pickle, dataclasses',
      '@dataclasses.dataclass',
      'class Point:',
      '    x: int',
      'print(pickle.loads(pickle.dumps(Point(3))), __name__)',
      'exit(0)',
    ].join('\n'),
  );
  expect(result).toEqual({ stdout: '285\n[0, 1, 2]\n2d711642 42\n1:00:00\nPoint(x=3) __main__\n', stderr: '', truncated: false });
});

it('opens no socket of any family; only a Unix socket pair (its own two ends) is allowed', async () => {
  const result = await run(
    [
      'import socket',
      "for family in ('AF_INET', 'AF_INET6', 'AF_UNIX', 'AF_NETLINK', 'AF_PACKET', 'AF_VSOCK'):",
      '    try:',
      '        socket.socket(getattr(socket, family), socket.SOCK_DGRAM if family == "AF_NETLINK" else socket.SOCK_STREAM)',
      "        print(family, 'opened')",
      '    except OSError as e:',
      "        print(family, 'refused', e.errno)",
      'a, b = socket.socketpair()',
      "a.sendall(b'ping')",
      'print(b.recv(4))',
    ].join('\n'),
  );
  expect(result.stdout).toBe(
    ['AF_INET', 'AF_INET6', 'AF_UNIX', 'AF_NETLINK', 'AF_PACKET', 'AF_VSOCK'].map((family) => `${family} refused 1\n`).join('') + "b'ping'\n",
  );
});

it('changes nothing of the host: /proc/sys and /dev are read-only, and no descriptor but its four channels is open', async () => {
  const result = await run(
    [
      'import os',
      "for path in ('/proc/sys/kernel/hostname', '/proc/sys/kernel/core_pattern', '/dev/x', '/dev/shm/x'):",
      '    try:',
      "        open(path, 'w').write('x')",
      "        print(path, 'written')",
      '    except OSError as e:',
      "        print(path, 'refused', e.errno)",
      "print(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))",
    ].join('\n'),
  );
  expect(result.stdout).toBe(
    [
      '/proc/sys/kernel/hostname refused 13',
      '/proc/sys/kernel/core_pattern refused 13',
      '/dev/x refused 30',
      '/dev/shm/x refused 30',
      // 0-3, and the descriptor listdir itself opened.
      '[0, 1, 2, 3, 4]',
      '',
    ].join('\n'),
  );
});

it('refuses out-of-band data on its socket pair', async () => {
  const result = await run(
    ['import socket', 'a, b = socket.socketpair()', 'try:', "    a.send(b'x', socket.MSG_OOB)", 'except OSError as e:', "    print('refused', e.errno)"].join(
      '\n',
    ),
  );
  expect(result.stdout).toBe('refused 1\n');
});

it("shows in /proc only the program's own process (and its threads)", async () => {
  const result = await run(
    [
      'import os, threading',
      'done = threading.Event()',
      'worker = threading.Thread(target=done.wait)',
      'worker.start()',
      "print(os.getpid(), [name for name in os.listdir('/proc') if name.isdigit()], len(os.listdir(f'/proc/{os.getpid()}/task')))",
      'done.set()',
    ].join('\n'),
  );
  expect(result.stdout).toBe("1 ['1'] 2\n");
});

it('ends a fork bomb, a thread bomb, a memory hog, a CPU loop, a huge file and a full /tmp with a clear error, and the next program runs normally', async () => {
  const next = async () => expect((await run('print(6 * 7)')).stdout).toBe('42\n');
  expect(await failure('import os\nwhile True:\n    os.fork()')).toMatch(
    /PermissionError: \[Errno 1\] Operation not permitted\n\n\(the sandbox does not allow this: no new processes/,
  );
  await next();
  expect(await failure('import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(30,)).start()')).toMatch(
    /RuntimeError: can't start new thread\n\n\(a program may run at most 64 threads, within the sandbox's memory limit of 256 MB\)/,
  );
  await next();
  // Small stacks would fit thousands of threads in the memory limit: the thread cap still holds.
  expect(
    await failure('import threading, time\nthreading.stack_size(32768)\nwhile True:\n    threading.Thread(target=time.sleep, args=(30,)).start()'),
  ).toMatch(/RuntimeError: can't start new thread\n\n\(a program may run at most 64 threads/);
  await next();
  // Its own channel to the worker is bounded too: a flood ends the sandbox, not the worker.
  expect(await failure('import os\nwhile True:\n    os.write(3, bytes(1024 * 1024))')).toMatch(
    /wrote more than 1048576 bytes to the sandbox's own channel \(descriptor 3\), so the sandbox was ended/,
  );
  await next();
  expect(await failure('blocks = []\nwhile True:\n    blocks.append(bytearray(10 * 1024 * 1024))', { memoryMb: 128 })).toBe(
    'ToolError: the Python program exceeded its memory limit of 128 MB',
  );
  await next();
  const startedAt = Date.now();
  expect(await failure('while True:\n    pass', { timeoutMs: 500 })).toBe('ToolError: the Python program timed out after 500 ms');
  expect(Date.now() - startedAt).toBeLessThan(3_000);
  await next();
  expect(await failure("with open('/tmp/huge', 'wb') as f:\n    while True:\n        f.write(bytes(1024 * 1024))")).toMatch(
    /OSError: \[Errno 27\] File too large\n\n\(the sandbox's limit on a file's size is 64 MB\)/,
  );
  await next();
  expect(await failure("for i in range(1000):\n    open(f'/tmp/part{i}', 'wb').write(bytes(1024 * 1024))")).toMatch(
    /OSError: \[Errno 28\] No space left on device\n\n\(the sandbox's \/tmp and \/data hold at most 64 MB each\)/,
  );
  await next();
});

it('applies each program its own memory cap when it is handed over, from one pool that a cap change does not empty', async () => {
  const before = sandbox.pool().waiting;
  expect(before).toHaveLength(poolSize);
  const allocate = 'data = bytearray(200 * 1024 * 1024)\nprint(len(data) // 1024 // 1024)';
  expect(await failure(allocate, { memoryMb: 128 })).toBe('ToolError: the Python program exceeded its memory limit of 128 MB');
  // Refilled on the take: full again, the untaken sandbox still there.
  const afterSmall = sandbox.pool().waiting;
  expect(afterSmall).toHaveLength(poolSize);
  expect(afterSmall).toContain(before[1]);
  expect((await run(allocate, { memoryMb: 512 })).stdout).toBe('200\n');
  expect(sandbox.pool().waiting).toContain(afterSmall[1]);
});

it('hands no program to a waiting sandbox that died, and refills for it', async () => {
  await sandbox.prewarm();
  const killed = sandbox.pool().waiting;
  for (const pid of killed) process.kill(pid, 'SIGKILL');
  while (killed.some((pid) => existsSync(`/proc/${pid}`))) await new Promise((resolve) => setTimeout(resolve, 10));
  expect((await run('print(6 * 7)')).stdout).toBe('42\n');
  expect(sandbox.pool().waiting).toHaveLength(poolSize);
  expect(sandbox.pool().waiting.filter((pid) => killed.includes(pid))).toEqual([]);
});

it("reports the pool's size, its waiting sandboxes and each one's memory (PSS) as metrics", async () => {
  const registry = new Registry();
  watchSandboxPool(registry, sandbox);
  await sandbox.prewarm();
  const metrics = await registry.getMetricsAsJSON();
  const value = (name: string) => metrics.find((metric) => metric.name === name)?.values ?? [];
  expect(value('weft_python_sandbox_pool_size').map((entry) => entry.value)).toEqual([poolSize]);
  expect(value('weft_python_sandbox_pool_waiting').map((entry) => entry.value)).toEqual([poolSize]);
  const memory = value('weft_python_sandbox_memory_bytes');
  expect(memory.map((entry) => entry.labels.sandbox)).toEqual(['0', '1']);
  for (const entry of memory) expect(entry.value).toBeGreaterThan(1024 * 1024);
  for (const entry of memory) expect(entry.value).toBeLessThan(20 * 1024 * 1024);
});
