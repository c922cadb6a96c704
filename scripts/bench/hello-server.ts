// The baseline of the HTTP benchmark: an Express hello-world with a JSON body parser, on loopback.
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.use(express.json());
app.get('/hello', (_req, res) => { res.json({ hello: 'world' }); });
app.post('/hello', (req, res) => { res.json({ received: req.body as unknown }); });
// The mixed workload's floor: a request that keeps the thread busy for `us` microseconds, as a gateway
// request of that mean cost does, and nothing else; its latency under the same load is what Node itself gives.
app.get('/busy', (req, res) => {
  const micros = Math.min(Number(req.query.us ?? 0) || 0, 100_000);
  const until = performance.now() + micros / 1000;
  while (performance.now() < until);
  res.json({ busy: micros });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }));
});
