import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  TELEGRAM_MAX_TEXT,
  telegramBody,
  telegramText,
} from '../../../src/leader/notifications/telegram-format.js';

describe('telegram sendMessage body', () => {
  it('is chat_id, HTML text, parse_mode and no link previews', () => {
    const body = JSON.parse(
      telegramBody({ title: 't', headline: 'Block 5 found', tone: 'good', fields: [] }, '-100123'),
    );
    expect(body).toEqual({
      chat_id: '-100123',
      text: '<b>Block 5 found</b>',
      parse_mode: 'HTML',
      disable_web_page_preview: true,
    });
  });

  it('escapes &, <, > (and " in links) in every value, and links and codes hashes', () => {
    const text = telegramText({
      title: 't',
      headline: 'a < b & c > d',
      tone: 'bad',
      fields: [
        { name: '<i>name</i>', value: '"quoted" & <tag>' },
        { name: 'Hash', value: 'abcd…ef', code: true, url: 'https://x.example/?a=1&b="2"' },
      ],
    });
    expect(text).toBe(
      [
        '<b>a &lt; b &amp; c &gt; d</b>',
        '<b>&lt;i&gt;name&lt;/i&gt;</b>: &quot;quoted&quot; &amp; &lt;tag&gt;',
        '<b>Hash</b>: <a href="https://x.example/?a=1&amp;b=&quot;2&quot;"><code>abcd…ef</code></a>',
      ].join('\n'),
    );
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('stays within 4096 characters, dropping whole lines and marking the cut', () => {
    const text = telegramText({
      title: 't',
      headline: 'h'.repeat(5_000),
      tone: 'good',
      fields: Array.from({ length: 30 }, (_, i) => ({ name: `F${i}`, value: '<'.repeat(2_000) })),
    });
    expect(text.length).toBeLessThanOrEqual(TELEGRAM_MAX_TEXT);
    expect(text.endsWith('\n…')).toBe(true);
    // No tag or entity is cut in half.
    expect(text.match(/<b>/g)!.length).toBe(text.match(/<\/b>/g)!.length);
    expect(text).not.toMatch(/&[a-z]*\n…$/);
  });
});
