export * from '../../src/playground/slack-signer.js';
