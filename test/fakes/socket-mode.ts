export * from '../../src/playground/socket-mode.js';
