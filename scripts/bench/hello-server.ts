// The baseline of the HTTP benchmark: an Express hello-world with a JSON body parser, on loopback.
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.use(express.json());
app.get('/hello', (_req, res) => { res.json({ hello: 'world' }); });
app.post('/hello', (req, res) => { res.json({ received: req.body as unknown }); });
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }));
});
