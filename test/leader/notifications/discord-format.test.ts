import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/leader/notifications/chat-message.js';
import {
  DISCORD_LIMITS,
  discordBody,
  escapeMarkdown,
} from '../../../src/leader/notifications/discord-format.js';

interface DiscordBody {
  content: string;
  embeds: Array<{
    title: string;
    fields: Array<{ name: string; value: string; inline: boolean }>;
    timestamp: string;
    color: number;
  }>;
  allowed_mentions: { parse: string[] };
}

function render(message: ChatMessage): DiscordBody {
  return JSON.parse(discordBody(message, Date.UTC(2026, 0, 2, 3, 4, 5))) as DiscordBody;
}

describe('discord execute-webhook body', () => {
  it('keeps content, title, field names and values, field count and the embed total within the limits', () => {
    const body = render({
      title: 'T'.repeat(400),
      headline: 'H'.repeat(3_000),
      tone: 'bad',
      fields: Array.from({ length: 40 }, (_, i) => ({
        name: `N${i}`.repeat(100),
        value: 'v'.repeat(2_000),
        url: `https://explorer.example/${'x'.repeat(2_000)}`,
      })),
    });
    const [embed] = body.embeds;
    expect(body.content.length).toBeLessThanOrEqual(DISCORD_LIMITS.content);
    expect(embed!.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
    expect(embed!.fields.length).toBeGreaterThan(0);
    expect(embed!.fields.length).toBeLessThanOrEqual(DISCORD_LIMITS.fields);
    let total = embed!.title.length;
    for (const field of embed!.fields) {
      expect(field.name.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldName);
      expect(field.value.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
      // A link that does not fit is left out rather than cut (a cut URL would point elsewhere).
      expect(field.value).not.toContain('](');
      total += field.name.length + field.value.length;
    }
    expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
    expect(embed!.color).toBe(0xe7_4c_3c);
  });

  it('says how many fields the embed total left out (ten failed batches with long wallet texts)', () => {
    const body = render({
      title: '10 payments failed',
      headline: '10 payments failed',
      tone: 'bad',
      fields: Array.from({ length: 10 }, (_, i) => ({
        name: `0.0000010 XFG to ${i + 2} miners`,
        // 500 characters (the reason's clip), 625 once its underscores are escaped.
        value: `${i}_b `.repeat(125),
      })),
    });
    const fields = body.embeds[0]!.fields;
    expect(fields.slice(0, -1).every((f) => f.name.endsWith('miners'))).toBe(true);
    expect(fields.at(-1)).toEqual({
      name: 'More',
      value: `${10 - (fields.length - 1)} more not shown (Discord's size limit)`,
      inline: false,
    });
    const total = fields.reduce((sum, f) => sum + f.name.length + f.value.length, 18);
    expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
  });

  it('uses the event time, else the sending time, as the embed timestamp', () => {
    const message: ChatMessage = { title: 't', headline: 'h', tone: 'neutral', fields: [] };
    expect(render(message).embeds[0]!.timestamp).toBe('2026-01-02T03:04:05.000Z');
    expect(render({ ...message, timestampMs: 0 }).embeds[0]!.timestamp).toBe('1970-01-01T00:00:00.000Z');
  });

  it('escapes markdown in text, keeps hashes as code, and pings no one', () => {
    const body = render({
      title: 'Payment failed',
      headline: '@everyone **look** <@123> (soon)',
      tone: 'bad',
      fields: [
        { name: 'Reason', value: '`rm` _x_ [a](http://evil.example) # h\n# big\n> quote' },
        { name: 'Hash', value: 'ab`cd', code: true },
        { name: 'Empty', value: '' },
      ],
    });
    expect(body.content).toBe('\\@everyone \\*\\*look\\*\\* \\<\\@123> (soon)');
    expect(body.embeds[0]!.fields.map((f) => f.value)).toEqual([
      '\\`rm\\` \\_x\\_ \\[a\\](http://evil.example) # h\n\\# big\n\\> quote',
      "`ab'cd`",
      '-',
    ]);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(escapeMarkdown('12.3456789 XFG: ok')).toBe('12.3456789 XFG: ok');
  });
});
