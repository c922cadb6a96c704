// The suite's transport (node:http with kept-alive connections) answers what fetch answered: lower-case headers
// with repeats joined, UTF-8 text without a BOM, an event stream's first message, a time-out named as such, no
// redirect followed, a GET with a body refused unsent, and a connection the server closed while idle not a failure.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNetworkError } from '../src/network-errors.ts';
import { send } from '../src/transport.ts';

let server: Server;
let base: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    if (req.url === '/headers') {
      res.setHeader('X-Twice', ['a', 'b']);
      res.setHeader('Content-Type', 'application/json');
      res.end('\uFEFF{"ok":true}');
    } else if (req.url === '/redirect') {
      res.writeHead(302, { location: '/elsewhere' }).end();
    } else if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': connected\n\n');
      res.write('id: 1\nevent: a\ndata: {}\n\n');
      // The stream stays open: the transport must not wait for its end.
    } else if (req.url === '/silent') {
      // Never answers.
    } else {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
      req.on('end', () => { res.end(`${req.method ?? ''} ${body}`); });
    }
  });
  // Idle connections are closed at once: each next request meets a connection the server closed.
  server.keepAliveTimeout = 1;
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('transport', () => {
  it('answers lower-case headers, repeats joined, and UTF-8 text without a BOM', async () => {
    const res = await send({ method: 'GET', url: `${base}/headers`, headers: {}, timeoutMs: 5000 });
    expect(res.status).toBe(200);
    expect(res.headers['x-twice']).toBe('a, b');
    expect(res.text).toBe('{"ok":true}');
  });

  it('sends a body and follows no redirect', async () => {
    expect((await send({ method: 'POST', url: `${base}/echo`, headers: { 'content-type': 'text/plain' }, body: 'été', timeoutMs: 5000 })).text).toBe('POST été');
    expect((await send({ method: 'PUT', url: `${base}/echo`, headers: {}, body: new Uint8Array([0x68, 0x69]), timeoutMs: 5000 })).text).toBe('PUT hi');
    const moved = await send({ method: 'GET', url: `${base}/redirect`, headers: {}, timeoutMs: 5000 });
    expect([moved.status, moved.headers.location]).toEqual([302, '/elsewhere']);
  });

  it("reads an event stream's first message and does not wait for its end", async () => {
    const started = performance.now();
    const res = await send({ method: 'GET', url: `${base}/stream`, headers: {}, timeoutMs: 10_000 });
    expect(res.text).toBe(': connected\n\n');
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it('names a time-out as fetch did, and refuses a GET with a body unsent', async () => {
    const silent = await send({ method: 'GET', url: `${base}/silent`, headers: {}, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(describeNetworkError(silent, 300)).toBe('timed out (no answer within 300 ms, --timeout)');
    const before = requests;
    await expect(send({ method: 'GET', url: `${base}/echo`, headers: {}, body: 'x', timeoutMs: 1000 })).rejects.toThrow(TypeError);
    expect(requests).toBe(before);
  });

  it('many requests in a row over connections the server closes while idle all succeed', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await send({ method: 'POST', url: `${base}/echo`, headers: {}, body: String(i), timeoutMs: 5000 })).text).toBe(`POST ${String(i)}`);
      await new Promise((r) => setTimeout(r, i % 3 === 0 ? 5 : 0));
    }
  });
});
