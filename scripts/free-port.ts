// A free TCP port on a host, found by listening on port 0 and closing again: the tooling's (the dev watch and the
// benchmarks), one copy. The server never probes: it binds and reads the port it got (main.ts, cluster.ts).
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
