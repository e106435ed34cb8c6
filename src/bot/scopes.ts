/**
 * The bot scopes the app asks for at OAuth install — the same list as `manifest.yml` (a test keeps
 * them equal), least privilege: each is needed by a feature named beside it there.
 */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'users:read',
  'reactions:write',
  'files:read',
  'files:write',
  'channels:history',
  'groups:history',
  'channels:read',
  'groups:read',
  'metadata.message:read',
] as const;
