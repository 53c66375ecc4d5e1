import express5 from 'express';
import { expressScenarios } from './express-scenarios.js';
import { adapterScenarios } from './scenarios.js';
import { startExpress5 } from './servers.js';

adapterScenarios('Express 5', startExpress5);
expressScenarios('Express 5', express5);
