# One Python sandbox (see python-sandbox.ts, which starts it inside bubblewrap): a fresh CPython
# that preloads the modules agents use most, locks itself down with a seccomp filter, says it is
# ready, and then waits for the one program it will ever run. Being a fresh exec of the
# interpreter, not a fork of a shared one, it has its own hash seed (CPython picks it from
# urandom at start; -I ignores PYTHONHASHSEED) and its own random state (seeded from urandom when
# `random` is imported).
#
# Channels: fd 0 brings the program (one JSON line), fds 1 and 2 are the program's stdout and
# stderr (the host keeps the first bytes of each), fd 3 carries this runner's messages (one JSON
# line each: ready, then the result).
import binascii
import builtins
import errno
import json
import os
import resource
import site
import sys

# Modules agents use most, imported before any program so its imports are lookups. Not asyncio:
# it alone would double the time and memory a waiting sandbox costs, and few programs use it.
import collections, csv, datetime, decimal, fractions, functools, io, itertools, math, random, re
import statistics, string, textwrap

# Isolated mode leaves the runner's own directory off the path; the filter (and libseccomp's
# bindings, bound beside it) are imported from there, and then it is taken off again.
sys.path.insert(0, os.path.dirname(__file__))
import sandbox_seccomp

sys.path.pop(0)
# compile()'s flag for top-level await (ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, without importing ast),
# and the flag of code that turned out to use it.
ALLOW_TOP_LEVEL_AWAIT = 0x2000
CO_COROUTINE = 0x80

messages = os.fdopen(3, 'w', buffering=1)


def send(message):
    messages.write(json.dumps(message) + '\n')


def read_program():
    chunks = []
    while True:
        chunk = os.read(0, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b'\n'):
            break
    if not chunks:
        os._exit(0)  # the host went away before sending a program
    return json.loads(b''.join(chunks))


def place_files(files):
    for file in files:
        target = os.path.join('/data', file['path'])
        if os.path.relpath(target, '/data').startswith('..'):
            raise ValueError('a data file path leaves /data: ' + file['path'])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, 'wb') as out:
            out.write(binascii.a2b_base64(file['content']))


MAX_THREADS = 64


def limit(kind, value):
    resource.setrlimit(kind, (value, value))


def apply_limits(program):
    # Hard limits (soft = hard), so the program cannot raise them back.
    limit(resource.RLIMIT_AS, program['memoryMb'] * 1024 * 1024)
    limit(resource.RLIMIT_CPU, program['cpuSeconds'])
    limit(resource.RLIMIT_FSIZE, program['fileSizeMb'] * 1024 * 1024)
    limit(resource.RLIMIT_NOFILE, program['openFiles'])
    limit(resource.RLIMIT_CORE, 0)
    # Threads: the sandbox's user namespace is its own, so this counts its threads only. Memory
    # alone would not bound them: small stacks fit thousands, each a host pid and kernel memory.
    limit(resource.RLIMIT_NPROC, MAX_THREADS)


def without_runner_frames(error):
    # The traceback starts at the program's own code, not at this runner (or asyncio's runner).
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    first = next((index for index, frame in enumerate(frames) if frame.filename == '<exec>'), len(frames))
    own = frames[first:]
    message = ''.join(traceback.format_exception_only(type(error), error))
    if not own:
        return message
    return 'Traceback (most recent call last):\n' + ''.join(traceback.format_list(own)) + message


def explain(error):
    # The kernel refuses what the sandbox does not allow with EPERM; say so beside Python's words.
    if isinstance(error, OSError) and error.errno == errno.EPERM:
        return '\n(the sandbox does not allow this: no new processes, no network, no system administration)'
    if isinstance(error, RuntimeError) and str(error) == "can't start new thread":
        return f"\n(a program may run at most {MAX_THREADS} threads, within the sandbox's memory limit of {current['memoryMb']} MB)"
    if isinstance(error, OSError) and error.errno == errno.EFBIG:
        return f"\n(the sandbox's limit on a file's size is {current['fileSizeMb']} MB)"
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return f"\n(the sandbox's /tmp and /data hold at most {current['fileSizeMb']} MB each)"
    return ''


def run(code):
    program = compile(code, '<exec>', 'exec', flags=ALLOW_TOP_LEVEL_AWAIT)
    # The program is __main__ (pickle, dataclasses and typing look its classes up there), not this runner.
    main = type(sys)('__main__')
    main.__builtins__ = builtins
    sys.modules['__main__'] = main
    scope = main.__dict__
    # Top-level await, as Pyodide allowed it: such a program compiles to a coroutine.
    if program.co_flags & CO_COROUTINE:
        import asyncio

        asyncio.run(eval(program, scope))
    else:
        exec(program, scope)


# -S leaves out site's setup (and with it the installed packages); programs still expect exit() and quit().
site.setquit()
# Only the four channels: a descriptor the worker's launcher left open without close-on-exec would
# otherwise reach the program (and through it, the next program's host).
os.closerange(4, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
sandbox_seccomp.load()
del sys.modules['sandbox_seccomp']
send({'ready': True})
current = read_program()
# The program's stdin is /dev/null, on descriptor 0 alone (a descriptor of its own would be one
# more open channel), read through a fresh file object (the old one may hold the program's bytes).
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.close(null)
sys.stdin = open(0, closefd=False)
apply_limits(current)
result = {}
try:
    place_files(current['files'])
    run(current['code'])
except MemoryError:
    # What the program holds goes first, so that the answer itself finds memory.
    sys.modules['__main__'].__dict__.clear()
    result = {'memory': True}
except SystemExit as error:
    if error.code not in (None, 0):
        result = {'error': without_runner_frames(error)}
except BaseException as error:  # the program's KeyboardInterrupt too is its error
    result = {'error': without_runner_frames(error) + explain(error)}
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BaseException:  # output the program broke is still its output, as far as it went
    pass
send(result)
os._exit(0)
