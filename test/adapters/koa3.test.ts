import Koa from 'koa';
import { koaScenarios } from './koa-scenarios.js';
import { startKoa3 } from './node-servers.js';
import { adapterScenarios } from './scenarios.js';

adapterScenarios('Koa 3', startKoa3);
koaScenarios('Koa 3', Koa);
