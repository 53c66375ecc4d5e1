import fastify4 from 'fastify4';
import { type FastifyFactory, fastifyScenarios } from './fastify-scenarios.js';
import { startFastify4 } from './node-servers.js';
import { adapterScenarios } from './scenarios.js';

adapterScenarios('Fastify 4', startFastify4);
// Fastify 4's typings differ from 5's in generics only; every call the scenarios make exists in both.
fastifyScenarios('Fastify 4', fastify4 as unknown as FastifyFactory);
