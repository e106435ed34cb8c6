/**
 * Slack file objects as the bot reads them — from a message event's `files`, a signed upload field or
 * `files.info` — narrowed to the few fields it uses, and how a file is named to a person.
 */
import { z } from 'zod';

export const slackFileSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  title: z.string().optional(),
  mimetype: z.string().optional(),
  filetype: z.string().optional(),
  size: z.number().nonnegative().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
  /**
   * `hosted` (or `snippet`, `post`…) for a file Slack stores; `tombstone` for a deleted file, `external` for a
   * linked (e.g. Drive) file, `hidden_by_limit` for one the workspace's plan no longer shows.
   */
  mode: z.string().optional(),
  is_external: z.boolean().optional(),
  /**
   * `check_file_info`: the event carries only the file's id (a file of a Slack Connect channel): `files.info`
   * says the rest. Example: https://docs.slack.dev/reference/events/file_shared ("To obtain additional
   * information about the file, use the files.info API method").
   */
  file_access: z.string().optional(),
});
export type SlackFileObject = z.infer<typeof slackFileSchema>;

/** Keeps the files that parse; a malformed entry counts as unusable rather than failing the whole list. */
export function parseSlackFiles(raw: unknown): { files: SlackFileObject[]; malformed: number } {
  const list = Array.isArray(raw) ? raw : [];
  const files: SlackFileObject[] = [];
  let malformed = 0;
  for (const item of list) {
    const parsed = slackFileSchema.safeParse(item);
    if (parsed.success) files.push(parsed.data);
    else malformed += 1;
  }
  return { files, malformed };
}

export function fileLabel(file: SlackFileObject): string {
  const name = file.name || file.title || file.id;
  return name.length > 80 ? `${name.slice(0, 79)}…` : name;
}

/** "830 KB", "12.5 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10} MB`;
}

export function downloadUrl(file: SlackFileObject): string | undefined {
  return file.url_private_download || file.url_private || undefined;
}
