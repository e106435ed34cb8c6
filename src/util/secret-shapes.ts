/**
 * Strings that are secrets by their shape alone, masked wherever text leaves the process (log lines, platform
 * error messages shown in Slack) even when nobody registered them as secrets.
 */

/** Slack bot/user/app tokens: `xoxb-…`, `xapp-…`, and a workflow step run's token `xwfp-…`. */
const SLACK_TOKEN = /\b(xox[abposre]|xapp|xwfp)-[A-Za-z0-9-]{6,}/g;
/**
 * A hook token or an attachment link's token is 32 random bytes in base64url (store/workspaces.ts,
 * store/attachments.ts): exactly 43 such characters, standing alone.
 */
const HOOK_TOKEN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
/** Whatever follows `/hooks/` in a URL or path is a hook token, well-formed or not. */
const HOOK_PATH = /\/hooks\/[^/?#\s"'<>`|]+/g;
/** Whatever follows `/attachments/` is an attachment link's token: it opens a file a customer was sent. */
const ATTACHMENT_PATH = /\/attachments\/[^/?#\s"'<>`|]+/g;

export function maskSecretShapes(text: string): string {
  // Each shape needs a literal or a length most strings lack: checking those first skips the scans (this runs
  // for every string of every log line).
  let out = text;
  if (out.includes('xox') || out.includes('xapp') || out.includes('xwfp')) {
    out = out.replace(SLACK_TOKEN, (m) => `${m.slice(0, m.indexOf('-') + 1)}[redacted]`);
  }
  if (out.includes('/hooks/')) out = out.replace(HOOK_PATH, '/hooks/[redacted]');
  if (out.includes('/attachments/')) out = out.replace(ATTACHMENT_PATH, '/attachments/[redacted]');
  if (out.length >= 43) out = out.replace(HOOK_TOKEN, '[redacted]');
  return out;
}
