export * from '../../src/playground/platform-sim.js';
