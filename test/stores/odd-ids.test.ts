import { afterAll, beforeAll, describe } from 'vitest';
import { memoryDedupStore } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import {
  type ClientName,
  describeWithServer,
  freshTable,
  openDatabase,
  server,
  type TestDatabase,
} from '../postgres/postgres-clients.js';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from '../redis/redis-clients.js';
import { oddIdContract } from './odd-ids.js';
import { tenantIsolationContract } from './tenant-isolation.js';

afterAll(() => server.stop());

oddIdContract('memoryDedupStore', () => memoryDedupStore());
tenantIsolationContract('memoryDedupStore', () => memoryDedupStore());

describeWithRedis('redisDedupStore', () => {
  for (const name of clientNames) {
    describe(`with ${name}`, () => {
      let redis: TestClient;
      beforeAll(async () => {
        redis = await connect(name);
      });
      afterAll(() => redis?.close());
      oddIdContract(`redisDedupStore (${name})`, () => redisDedupStore(redis.client, { keyPrefix: freshPrefix() }));
      tenantIsolationContract(`redisDedupStore (${name})`, () =>
        redisDedupStore(redis.client, { keyPrefix: freshPrefix() }),
      );
    });
  }
});

const postgresClients: ClientName[] = ['pg Pool', 'pg Client', 'postgres', 'PGlite'];
for (const name of postgresClients) {
  (name === 'PGlite' ? describe : describeWithServer)(`postgresDedupStore with ${name}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await openDatabase(name);
      // Each store on a shared pg Client keeps one 'error' listener once a transaction of its
      // failed (connectionGuard); these suites make dozens of stores on one client.
      (db.client as { setMaxListeners?: (count: number) => void }).setMaxListeners?.(200);
    }, 60_000);
    afterAll(() => db?.close());
    for (const transactional of [false, true]) {
      oddIdContract(`postgresDedupStore (${name}${transactional ? ', transactional' : ''})`, () =>
        postgresDedupStore(db.client, { table: freshTable(), transactional }),
      );
      tenantIsolationContract(`postgresDedupStore (${name}${transactional ? ', transactional' : ''})`, () =>
        postgresDedupStore(db.client, { table: freshTable(), transactional }),
      );
    }
  });
}
