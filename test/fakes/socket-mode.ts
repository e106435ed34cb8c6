export * from '../../fakes/slack/socket-mode-driver.js';
