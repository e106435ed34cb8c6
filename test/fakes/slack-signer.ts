export * from '../../fakes/slack/signer.js';
