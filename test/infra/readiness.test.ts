import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { untilReady } from '../../infra/weft-launch';

// `make up` prints the commands to try only once every worker and API says it can take work, so a
// command pasted at once does not meet a refused connection.

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

/** A /readyz that answers 503 the first `notReadyFor` times, then 200. */
async function probe(notReadyFor: number): Promise<{ url: string; asked: () => number }> {
  let asked = 0;
  const server = createServer((_req, res) => res.writeHead(++asked > notReadyFor ? 200 : 503).end());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`, asked: () => asked };
}

it('waits until every process is ready', async () => {
  const [worker, api] = await Promise.all([probe(2), probe(0)]);
  const logged: string[] = [];
  expect(await untilReady([worker.url, api.url], (line) => logged.push(line), 10_000)).toBe(true);
  expect(worker.asked()).toBe(3);
  expect(logged).toEqual([]);
});

it('says which process never became ready, and when nothing answers at all', async () => {
  const stuck = await probe(Number.POSITIVE_INFINITY);
  const nobody = 'http://127.0.0.1:9/readyz';
  const logged: string[] = [];
  expect(await untilReady([stuck.url, nobody], (line) => logged.push(line), 1_200)).toBe(false);
  expect(stuck.asked()).toBeGreaterThan(1);
  expect(logged).toEqual([`not ready after 1.2 s: ${stuck.url}, ${nobody} (their lines above say why)`]);
});
