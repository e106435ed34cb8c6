/**
 * The page's form values → Slack's `view.state.values`: every input of the view, in Slack's shapes, and the
 * required ones left empty (Slack would not send such a submission).
 */
import { describe, expect, it } from 'vitest';
import { buildStateValues, REQUIRED_MESSAGE } from '../../playground/view-state.js';
import { checkboxes, fileInput, textInput } from '../../src/slack/modals.js';

const english = { text: { type: 'plain_text', text: 'English' }, value: 'en' };
const blocks = [
  textInput('name', 'Name'),
  textInput('description', 'Description', { optional: true, multiline: true }),
  {
    type: 'input',
    block_id: 'language',
    label: { type: 'plain_text', text: 'Language' },
    element: { type: 'static_select', action_id: 'value', options: [english] },
  },
  checkboxes('noise', 'Options', [{ value: 'remove', text: 'Remove background noise' }], { optional: true }),
  fileInput('samples', 'Samples', { optional: true }),
  { type: 'section', text: { type: 'mrkdwn', text: 'not an input' } },
];

describe('buildStateValues', () => {
  it('builds Slack shapes from the raw form values, with full option and file objects', () => {
    const file = { id: 'F1', name: 'a.mp3', url_private_download: 'http://x/a.mp3' };
    const { values, missing } = buildStateValues(
      blocks,
      {
        name: { value: 'Riley' },
        language: { value: 'en' },
        noise: { value: ['remove'] },
        samples: { value: ['F1', 'F-unknown'] },
      },
      (id) => (id === 'F1' ? file : undefined),
    );
    expect(missing).toEqual({});
    expect(values).toEqual({
      name: { value: { type: 'plain_text_input', value: 'Riley' } },
      description: { value: { type: 'plain_text_input', value: null } },
      language: { value: { type: 'static_select', selected_option: english } },
      noise: {
        value: {
          type: 'checkboxes',
          selected_options: [
            { text: { type: 'plain_text', text: 'Remove background noise', emoji: true }, value: 'remove' },
          ],
        },
      },
      samples: { value: { type: 'file_input', files: [file] } },
    });
  });

  it('reports required inputs left empty (blank text counts as empty) and ignores options the view does not offer', () => {
    const { missing, values } = buildStateValues(
      blocks,
      { name: { value: '   ' }, language: { value: 'xx' } },
      () => undefined,
    );
    expect(missing).toEqual({ name: REQUIRED_MESSAGE, language: REQUIRED_MESSAGE });
    expect(values.language?.value).toEqual({ type: 'static_select', selected_option: null });
  });
});
