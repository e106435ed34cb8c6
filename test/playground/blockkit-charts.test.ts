/**
 * The playground draws the blocks Slack draws reports with — charts and data tables — from what the bot's own
 * constructors make, and platform text in them never becomes markup.
 */
import { describe, expect, it } from 'vitest';
import { blocksToHtml } from '../../playground/blockkit-html.js';
import { axisChart, dataTable, pieChart } from '../../src/slack/blocks.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

describe('charts', () => {
  it('draws grouped bars per category, a gap as no bar, with the title, the axes and a legend', () => {
    const bars = axisChart('bar', 'Calls per day', { categories: ['Mon, Mar 4', 'Tue, Mar 5'], yLabel: 'Calls' }, [
      { name: 'Last 7 days', values: [12, null] },
      { name: 'Week before', values: [8, 9] },
    ]);
    const html = blocksToHtml([bars]);
    expect(html).toContain(
      '<figure class="bk-chart" data-chart-type="bar"><div class="bk-chart-title">Calls per day</div>',
    );
    // Three bars: 12, 8 and 9; 5 March has no figure this week.
    expect(html.match(/<rect [^>]*class="bk-chart-bar"/g)).toHaveLength(3);
    expect(html).toContain(
      'aria-label="Last 7 days: Mon, Mar 4 12, Tue, Mar 5 no figure; Week before: Mon, Mar 4 8, Tue, Mar 5 9"',
    );
    expect(html).toContain('>Mar 4</text>');
    expect(html).toContain('>Calls</text>');
    expect(html).toMatch(/bk-chart-legend">.*Last 7 days.*Week before/);
  });

  it('draws a line broken at a gap, and a pie with each segment’s share', () => {
    const line = axisChart('line', 'Calls', { categories: ['a', 'b', 'c'] }, [{ name: 'S', values: [1, null, 3] }]);
    expect(blocksToHtml([line]).match(/<polyline /g)).toHaveLength(2);
    const pie = pieChart('Outcomes', [
      { label: 'Booked', value: 1 },
      { label: 'Not connected', value: 3 },
    ]);
    const html = blocksToHtml([pie]);
    expect(html.match(/<path /g)).toHaveLength(2);
    expect(html).toContain('Booked 1 (25%)');
    expect(html).toContain('Not connected 3 (75%)');
  });

  it('escapes what the platform wrote', () => {
    const html = blocksToHtml([
      pieChart(HOSTILE, [{ label: HOSTILE, value: 1 }]),
      dataTable(HOSTILE, ['Campaign'], [[HOSTILE]]),
    ]);
    expect(html).not.toContain('<img');
  });
});

describe('data tables', () => {
  it('shows the caption, the header row, and numbers as their text, aligned right', () => {
    const html = blocksToHtml([
      dataTable('Top campaigns', ['Campaign', 'Calls'], [['Spring (camp-1)', { value: 1284, text: '1,284' }]]),
    ]);
    expect(html).toBe(
      '<table class="bk-data-table"><caption>Top campaigns</caption><thead><tr><th>Campaign</th><th>Calls</th></tr></thead>' +
        '<tbody><tr><td>Spring (camp-1)</td><td class="bk-table-number">1,284</td></tr></tbody></table>',
    );
  });
});
