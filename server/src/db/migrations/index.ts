// The migrations, in order. Each module exports up and down (or, when it depends on the migrating server's
// environment, a function of it that returns them); add a new one with the next number.
import type { Knex } from 'knex';
import type { Environment } from '../../config.ts';
import * as platform from './001_platform.ts';
import * as customers from './002_customers.ts';
import * as catalogueDevices from './003_catalogue_devices.ts';
import * as invoiceSettings from './004_invoice_settings.ts';
import * as invoices from './005_invoices.ts';
import * as transactions from './006_transactions.ts';
import * as webhooks from './007_webhooks.ts';
import * as customerSearch from './008_customer_search.ts';
import * as customerCounts from './009_customer_counts.ts';
import * as dashboardSessions from './010_dashboard_sessions.ts';
import * as eventStream from './011_event_stream.ts';
import * as instanceLeases from './012_instance_leases.ts';
import * as throttle from './013_throttle.ts';
import { keyEnvironment } from './014_key_environment.ts';
import * as sandboxes from './015_sandboxes.ts';
import * as terminals from './016_terminals.ts';
import * as subscriptions from './017_subscriptions.ts';
import * as quickPayments from './018_quick_payments.ts';
import * as customerCountSlots from './019_customer_count_slots.ts';
import * as outboxStreamRowid from './020_outbox_stream_rowid.ts';
import * as customerCreatedIndex from './021_customer_created_index.ts';
import * as streamPositions from './022_stream_positions.ts';
import * as reusableLinks from './023_reusable_links.ts';
import * as subscriptionPlans from './024_subscription_plans.ts';
import * as customerSearchPending from './025_customer_search_pending.ts';
import * as ginPendingList from './026_gin_pending_list.ts';

const migrationsOf = (environment: Environment): Record<string, Knex.Migration> => ({
  '001_platform': platform,
  '002_customers': customers,
  '003_catalogue_devices': catalogueDevices,
  '004_invoice_settings': invoiceSettings,
  '005_invoices': invoices,
  '006_transactions': transactions,
  '007_webhooks': webhooks,
  '008_customer_search': customerSearch,
  '009_customer_counts': customerCounts,
  '010_dashboard_sessions': dashboardSessions,
  '011_event_stream': eventStream,
  '012_instance_leases': instanceLeases,
  '013_throttle': throttle,
  '014_key_environment': keyEnvironment(environment),
  '015_sandboxes': sandboxes,
  '016_terminals': terminals,
  '017_subscriptions': subscriptions,
  '018_quick_payments': quickPayments,
  '019_customer_count_slots': customerCountSlots,
  '020_outbox_stream_rowid': outboxStreamRowid,
  '021_customer_created_index': customerCreatedIndex,
  '022_stream_positions': streamPositions,
  '023_reusable_links': reusableLinks,
  '024_subscription_plans': subscriptionPlans,
  '025_customer_search_pending': customerSearchPending,
  '026_gin_pending_list': ginPendingList,
});

/** The migrations as the server of `environment` runs them (existing API keys become that environment's). */
export function migrationSource(environment: Environment): Knex.MigrationSource<string> {
  const migrations = migrationsOf(environment);
  return {
    getMigrations: () => Promise.resolve(Object.keys(migrations).sort()),
    getMigrationName: (name) => name,
    getMigration: (name) => {
      const migration = migrations[name];
      if (!migration) throw new Error(`unknown migration ${name}`);
      return Promise.resolve(migration);
    },
  };
}
