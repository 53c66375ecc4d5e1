import Koa2 from 'koa2';
import { koaScenarios } from './koa-scenarios.js';
import { startKoa2 } from './node-servers.js';
import { adapterScenarios } from './scenarios.js';

adapterScenarios('Koa 2', startKoa2);
koaScenarios('Koa 2', Koa2);
