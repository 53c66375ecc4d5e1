import fastify from 'fastify';
import { fastifyScenarios } from './fastify-scenarios.js';
import { startFastify5 } from './node-servers.js';
import { adapterScenarios } from './scenarios.js';

adapterScenarios('Fastify 5', startFastify5);
fastifyScenarios('Fastify 5', fastify);
