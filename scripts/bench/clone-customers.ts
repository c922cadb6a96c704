// Inserts customers into a gateway's database from a process of its own (bench neighbour-in-process.ts): URL, template id, count.
import { cloneCustomers, openDatabase } from './lib-db.ts';

const [url, templateId, count] = process.argv.slice(2);
if (url === undefined || templateId === undefined || count === undefined) throw new Error('usage: clone-customers.ts DATABASE_URL TEMPLATE_ID COUNT');
const db = openDatabase(url);
try {
  await cloneCustomers(db, templateId, Number(count));
} finally {
  await db.destroy();
}
