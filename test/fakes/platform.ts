export * from '../../fakes/platform/index.js';
