// A request to an app over a real socket, its body as the given bytes exactly (supertest re-encodes a Buffer body's type).
import { once } from 'node:events';
import { createServer, request as httpRequest, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request over a real socket, its body as the given bytes (supertest re-encodes a Buffer body's type). */
export async function rawRequest(app: RequestListener, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string; body: unknown }> {
  const server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try { parsed = JSON.parse(text); } catch { parsed = undefined; }
          resolve({ status: res.statusCode ?? 0, text, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  } finally {
    server.close();
  }
}
