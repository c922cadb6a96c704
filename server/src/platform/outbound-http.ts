// Outbound HTTP to addresses checked beforehand: a POST whose connection goes only to the given addresses
// (the name is not resolved again, so a DNS answer that changes between the check and the connection does
// not get through), on a fresh connection each time, never following a redirect; TLS still verifies the
// certificate against the URL's host name.
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** Resolves a host name to its addresses (the system resolver by default; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

export const systemResolver: HostResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** A `lookup` for net.connect that answers with the pinned addresses whatever it is asked. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const wanted = entries.filter((e) => !options.family || e.family === options.family);
    const first = wanted[0];
    if (!first) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    // With `all` (Happy Eyeballs) every checked address may be tried; each is one that was checked.
    if (options.all) (callback as unknown as (e: null, a: typeof wanted) => void)(null, wanted);
    else callback(null, first.address, first.family);
  };
}

export interface PinnedAnswer {
  status: number;
  /** The start of the body (at most `maxBytes` read; the rest is not waited for). */
  text: string;
}

export interface PinnedPost {
  url: URL;
  /** The checked addresses of the URL's host; the connection goes to one of them. */
  addresses: readonly string[];
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  maxBytes: number;
}

/** POSTs the body to the URL over a connection to one of the checked addresses; answers the status and the body's start. */
export function postPinned(post: PinnedPost): Promise<PinnedAnswer> {
  const { url } = post;
  const options: RequestOptions = {
    method: 'POST',
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)), connection: 'close' },
    // No pooled connection: a kept-alive socket could outlive the check that chose its address.
    agent: false,
    lookup: pinnedLookup(post.addresses),
    signal: post.signal,
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(options, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (): void => {
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= post.maxBytes) finish();
      });
      res.on('end', finish);
      res.on('error', reject);
      res.on('close', () => { if (!res.complete && size < post.maxBytes) reject(new Error('the connection closed before the answer ended')); });
    });
    req.on('error', reject);
    req.end(post.body);
  });
}
