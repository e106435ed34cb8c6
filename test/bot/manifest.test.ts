/**
 * manifest.yml and the code must agree: what the app asks for at install is what the manifest grants.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../src/bot/scopes.js';
import { COMMAND } from '../../src/commands/index.js';
import { MANIFEST_BOT_SCOPES } from '../fakes/slack.js';

const manifest = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');

describe('manifest.yml', () => {
  it('lists exactly the bot scopes requested at OAuth install', () => {
    expect([...BOT_SCOPES].sort()).toEqual([...MANIFEST_BOT_SCOPES].sort());
  });

  it('declares the slash command and the message shortcut the code listens to', () => {
    expect(manifest).toContain(`command: ${COMMAND}`);
    expect(manifest).toContain('callback_id: clone_voice_from_message');
  });

  it('subscribes to the events the code handles', () => {
    for (const event of ['app_home_opened', 'app_uninstalled', 'tokens_revoked']) expect(manifest).toContain(`- ${event}`);
  });
});
