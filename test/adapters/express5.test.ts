import { adapterScenarios } from './scenarios.js';
import { startExpress5 } from './servers.js';

adapterScenarios('Express 5', startExpress5);
