import { describeNodeStarter } from './node-starter-suite.js';

describeNodeStarter({ name: 'hono-node', token: 'hono-example-token-8d41e7' });
