import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A port for a server a test or bench starts, free when chosen. Chosen below the kernel's
// ephemeral range: a port from listen(0) is in that range, where any outgoing connection (to
// Postgres, to Temporal) may take it as its own before the server binds it; below the range only
// another explicit bind can, and test processes choosing at random rarely meet. Below 32768 too:
// Temporal keeps its services' membership ports in a smallint column.

const lowest = 15_000;

function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32_768; // Linux's default, where /proc is not there to ask
  }
}

// Where the ephemeral range starts at or below `lowest`, nothing below it is left: the thousand
// ports above `lowest` then (no safer than listen(0)'s, no worse).
const highest = Math.max(lowest + 1_000, Math.min(ephemeralRangeStart(), 32_768) - 1);

const listens = (port: number) =>
  new Promise<boolean>((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (await listens(port)) return port;
  }
  throw new Error(`no free port between ${lowest} and ${highest} after 100 tries`);
}
