/**
 * Slack's mrkdwn control sequences: in message text and mrkdwn text objects, `<`, `>` and `&` are markup —
 * `<@U123>` mentions, `<#C123>` channels, `<!here>`, `<!subteam^S123>`, `<!date^…|…>`, `<https://…|label>` links
 * — and any other `<`, `>` or `&` must be sent escaped (`&lt;`, `&gt;`, `&amp;`): "Escaping text", in
 * https://docs.slack.dev/messaging/formatting-message-text#escaping. Real Slack renders a stray `<x|y>` as a
 * broken link rather than refusing it; this stand-in refuses it, so a test sees what a reader would have seen.
 * A `>` that starts a line is a quote and is allowed.
 */

const CONTROL = [
  /^@[UW][A-Z0-9]+(\|[^<>]*)?$/,
  /^#[CG][A-Z0-9]+(\|[^<>]*)?$/,
  /^!(here|channel|everyone)(\|[^<>]*)?$/,
  /^!subteam\^S[A-Z0-9]+(\|[^<>]*)?$/,
  /^!date\^\d+\^[^|<>]+(\^[^|<>]+)?\|[^<>]+$/,
  /^(https?:\/\/|mailto:|tel:)[^|<>\s]+(\|[^<>]*)?$/,
];

const ENTITY = /^&(amp|lt|gt);/;

/** Problems with `text`'s `<`, `>` and `&` (empty when every one is a control sequence or escaped). */
export function controlSequenceErrors(text: string): string[] {
  const errors: string[] = [];
  let i = 0;
  while (i < text.length && errors.length < 3) {
    const c = text[i];
    if (c === '<') {
      const end = text.indexOf('>', i + 1);
      const inner = end === -1 ? undefined : text.slice(i + 1, end);
      if (inner === undefined || inner.includes('<') || !CONTROL.some((re) => re.test(inner))) {
        errors.push(
          `unescaped '<' at ${i}: ${JSON.stringify(text.slice(i, i + 40))} is no control sequence (send &lt;)`,
        );
        i++;
        continue;
      }
      i = end + 1;
      continue;
    }
    if (c === '>') {
      // A quote: `>` first on a line (after blanks).
      const lineStart = text.lastIndexOf('\n', i - 1) + 1;
      if (text.slice(lineStart, i).trim() !== '')
        errors.push(`unescaped '>' at ${i}: ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 20))} (send &gt;)`);
    } else if (c === '&' && !ENTITY.test(text.slice(i, i + 5))) {
      errors.push(`unescaped '&' at ${i}: ${JSON.stringify(text.slice(i, i + 20))} (send &amp;)`);
    }
    i++;
  }
  return errors;
}
