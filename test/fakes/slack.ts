export * from '../../src/playground/slack-standin.js';
