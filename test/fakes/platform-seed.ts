export * from '../../src/playground/platform-seed.js';
