// A free TCP port on a host, found by listening on port 0 and closing again (the tooling's one copy: the dev
// watch and the benchmarks; the server keeps its own, as it imports nothing from scripts/).
import { createServer, type AddressInfo } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => { resolve(port); });
    });
  });
}
