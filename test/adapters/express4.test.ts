import express4 from 'express4';
import { expressScenarios } from './express-scenarios.js';
import { adapterScenarios } from './scenarios.js';
import { startExpress4 } from './servers.js';

adapterScenarios('Express 4', startExpress4);
expressScenarios('Express 4', express4);
