/**
 * Splits the text of `/campaign …` into a subcommand, positional arguments and flags.
 */
export interface ParsedCommand {
  name: string;
  args: string[];
  flags: Set<string>;
  /** Every word after the name, flags included (for free-text subcommands). */
  words: string[];
  /** The text after the name, exactly as typed (spacing and line breaks kept). */
  rest: string;
}

export function parseCommandText(text: string): ParsedCommand {
  // Some Slack clients send non-breaking spaces (U+00A0) between words: they separate words like plain spaces.
  const words = text
    .replace(/\u00a0/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const flags = new Set<string>();
  const positional: string[] = [];
  for (const word of words) {
    if (/^--?[a-z][a-z-]*$/i.test(word)) flags.add(word.replace(/^-+/, '').toLowerCase());
    else positional.push(word);
  }
  const [name = '', ...args] = positional;
  const rest = text.replace(/^[\s\u00a0]*[^\s\u00a0]*[\s\u00a0]*/, '');
  return { name: name.toLowerCase(), args, flags, words: words.slice(1), rest };
}
