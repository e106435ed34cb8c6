/**
 * manifest.yml and the code must agree (the bot scopes are compared in test/fakes-selftest/manifest-scopes.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND } from '../../src/commands/index.js';

const manifest = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');

describe('manifest.yml', () => {
  it('declares the slash command and the message shortcut the code listens to', () => {
    expect(manifest).toContain(`command: ${COMMAND}`);
    expect(manifest).toContain('callback_id: clone_voice_from_message');
  });

  it('subscribes to the events the code handles', () => {
    for (const event of ['app_home_opened', 'app_uninstalled', 'tokens_revoked']) expect(manifest).toContain(`- ${event}`);
  });
});
