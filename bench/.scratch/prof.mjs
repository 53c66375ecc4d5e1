import { createReceiver } from 'webhook-cms-receiver';
import { articleBody, signedDelivery, freshDeliveries, TOKEN } from '../lib/deliveries.mjs';
const mode = process.argv[2] || 'verify';
const ours = createReceiver({ token: TOKEN, dedup: mode === 'verify' ? false : undefined });
const d = signedDelivery(articleBody(1024));
if (mode === 'verify') { for (let i = 0; i < 400000; i++) await ours.verify(d); }
else { for (let k = 0; k < 20; k++) { const pool = freshDeliveries(1024, 20000); for (const p of pool) await ours.handle(p); } }
