import { memoryDedupStore } from 'webhook-cms-receiver';
import { storeContract } from './store-contract.js';

storeContract('memoryDedupStore', ({ leaseMs, retentionMs }) => memoryDedupStore({ leaseMs, retentionMs }));
