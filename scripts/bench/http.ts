// HTTP benchmark (autocannon on loopback): customer read and create, ACH debit create and card sale on the
// bundled server (SQLite file in WAL mode, access logs on), each beside an Express hello-world measured in
// the same run, printed as a ratio; then how long one sandbox clock advance takes over 10,000 due ACH
// debits. Prints the figures; asserts nothing.
// BENCH_SECONDS (default 8) and BENCH_CONNECTIONS (default 10) set the load.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { root } from '../lib/run.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => { resolve(port); });
    });
  });
}

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited with ${String(child.exitCode)}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

interface Figures { rps: number; p50: number; p99: number; failed: number }

async function load(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections, duration: seconds, ...options });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failed: result.non2xx + result.errors };
}

const line = (label: string, f: Figures): string =>
  `  ${label.padEnd(26)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(4)} ms${f.failed ? `   FAILED ${String(f.failed)}` : ''}`;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-bench-http-'));
  const children: ChildProcess[] = [];
  const spawnServer = (script: string, env: NodeJS.ProcessEnv, log: string): ChildProcess => {
    const out = openSync(path.join(dir, log), 'w');
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
    children.push(child);
    return child;
  };
  try {
    const gatewayPort = await freePort();
    const credentials = path.join(dir, 'credentials.json');
    const gateway = spawnServer('server/src/main.ts', {
      PORT: String(gatewayPort), DATABASE_URL: `sqlite:${path.join(dir, 'bench.sqlite')}`, PGW_CREDENTIALS_FILE: credentials, LOG_LEVEL: 'info',
    }, 'gateway.log');
    const helloPort = await freePort();
    const hello = spawnServer('scripts/bench/hello-server.ts', { PORT: String(helloPort) }, 'hello.log');
    const base = `http://127.0.0.1:${String(gatewayPort)}`;
    const helloBase = `http://127.0.0.1:${String(helloPort)}`;
    await waitFor(`${base}/healthz`, gateway);
    await waitFor(`${helloBase}/hello`, hello);

    const merchant = (JSON.parse(readFileSync(credentials, 'utf8')) as { merchants: { clientId: string; clientSecret: string; achProcessorId: string }[] }).merchants[0];
    if (!merchant) throw new Error('no demo merchant');
    const token = (await (await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret }),
    })).json()) as { access_token: string };
    const auth = { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' };
    const customer = JSON.stringify({
      firstName: 'Ada', lastName: 'Lovelace', companyName: 'Analytical Engines', email: 'ada@example.com', mobilePhoneNumber: '+15555550123',
      isMobileNumberSmsNotificationsEnabled: false, useBillingAsShippingAddress: true,
      billingAddress: { addressLine1: '1 Main St', addressLine2: '', city: 'Springfield', zip: '62701', stateName: 'Illinois', stateId: 15, countryId: 1 },
    });
    const created = await fetch(`${base}/pay-api/v1/customers`, { method: 'POST', headers: auth, body: customer });
    if (created.status !== 200) throw new Error(`customer create answered ${String(created.status)}: ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };

    console.log(`HTTP benchmark: ${String(connections)} connections, ${String(seconds)} s each, node ${process.version}, loopback`);
    const rows: [string, Figures, Figures][] = [];
    const readBase = await load({ url: `${helloBase}/hello` });
    const read = await load({ url: `${base}/pay-api/v1/customers/${id}`, headers: auth });
    rows.push(['customer read (GET)', read, readBase]);
    const writeBase = await load({ url: `${helloBase}/hello`, method: 'POST', headers: { 'content-type': 'application/json' }, body: customer });
    const write = await load({ url: `${base}/pay-api/v1/customers`, method: 'POST', headers: auth, body: customer });
    rows.push(['customer create (POST)', write, writeBase]);
    const achDebit = JSON.stringify({
      amount: 125.5, paymentProcessorId: merchant.achProcessorId, secCode: 1, requesterIPaddress: '203.0.113.24',
      routingNumber: '021000021', accountNumber: '000123456789', accountType: 1, accountHolderType: 2,
      billingAddress: { city: 'Austin', countryId: 1, line1: '100 Congress Ave', postalCode: '78701', stateId: 44 },
      contactInfo: { firstName: 'Jane', lastName: 'Doe', email: 'jane.doe@example.com' },
    });
    const achBase = await load({ url: `${helloBase}/hello`, method: 'POST', headers: { 'content-type': 'application/json' }, body: achDebit });
    const ach = await load({ url: `${base}/pay-api/v1/transactions/ach/payment`, method: 'POST', headers: auth, body: achDebit });
    rows.push(['ACH debit create (POST)', ach, achBase]);
    const sale = JSON.stringify({
      amount: 54.25, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' },
      billingAddress: { line1: '100 Congress Ave', postalCode: '78701' },
    });
    const saleBase = await load({ url: `${helloBase}/hello`, method: 'POST', headers: { 'content-type': 'application/json' }, body: sale });
    const cardSale = await load({ url: `${base}/pay-api/v1/transactions/card/sale`, method: 'POST', headers: auth, body: sale });
    rows.push(['card sale (POST)', cardSale, saleBase]);
    for (const [label, measured, baseline] of rows) {
      console.log(label);
      console.log(line('payment gateway', measured));
      console.log(line('express hello-world', baseline));
      console.log(`  ratio (gateway / baseline)  ${(measured.rps / baseline.rps).toFixed(3)} of the baseline's throughput`);
    }

    // The clock advance: 10,000 debits fall due (submission, then clearing) within the two days it moves.
    const due = 10_000;
    const pending = (await (await fetch(`${base}/sandbox/v1/clock`, { headers: auth })).json()) as { offsetSeconds: number };
    let made = 0;
    const started = Date.now();
    await Promise.all(Array.from({ length: 20 }, async () => {
      while (made < due) {
        made += 1;
        const res = await fetch(`${base}/pay-api/v1/transactions/ach/payment`, { method: 'POST', headers: auth, body: achDebit });
        if (res.status !== 200) throw new Error(`ACH debit answered ${String(res.status)}`);
        await res.arrayBuffer();
      }
    }));
    const createdIn = (Date.now() - started) / 1000;
    const before = Date.now();
    const advance = await fetch(`${base}/sandbox/v1/clock/advance`, { method: 'POST', headers: auth, body: JSON.stringify({ seconds: 2 * 86_400 }) });
    const took = (Date.now() - before) / 1000;
    const ran = ((await advance.json()) as { ran?: Record<string, number> }).ran ?? {};
    console.log(`clock advance over due ACH debits (${String(due)} made in ${createdIn.toFixed(1)} s, clock at +${String(pending.offsetSeconds)} s before)`);
    console.log(`  advance by 2 days           ${took.toFixed(2)} s   ran: ${JSON.stringify(ran)}`);
  } finally {
    for (const child of children) child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
