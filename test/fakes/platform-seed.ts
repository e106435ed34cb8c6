export * from '../../fakes/platform/seed.js';
