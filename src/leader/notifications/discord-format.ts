import { type ChatField, type ChatMessage, type ChatTone, clip } from './chat-message.js';

/** Discord's documented limits of an execute-webhook message and its embed (characters). */
export const DISCORD_LIMITS = {
  content: 2_000,
  title: 256,
  fields: 25,
  fieldName: 256,
  fieldValue: 1_024,
  /** Title, description, field names and values, footer and author of all embeds together. */
  embedTotal: 6_000,
} as const;

const COLORS: Readonly<Record<ChatTone, number>> = {
  good: 0x2e_cc_71,
  bad: 0xe7_4c_3c,
  neutral: 0x34_98_db,
};

/**
 * The JSON body of Discord's execute webhook: the headline as `content` (what a phone's
 * notification shows) and one embed with the title, the fields, the time and a colour for the
 * tone. Text is escaped for Discord's markdown, and `allowed_mentions` is empty, so a value such
 * as a wallet's error text can never format the message or ping `@everyone`.
 */
export function discordBody(message: ChatMessage, nowMs: number): string {
  const title = clip(escapeMarkdown(message.title), DISCORD_LIMITS.title);
  return JSON.stringify({
    content: clip(escapeMarkdown(message.headline), DISCORD_LIMITS.content),
    embeds: [
      {
        title,
        fields: embedFields(message.fields, title.length),
        timestamp: new Date(message.timestampMs ?? nowMs).toISOString(),
        color: COLORS[message.tone],
      },
    ],
    allowed_mentions: { parse: [] },
  });
}

interface EmbedField {
  readonly name: string;
  readonly value: string;
  readonly inline: boolean;
}

/** Room kept for the field that counts what did not fit: "More" and "NNN more not shown (...)". */
const MORE_FIELD_ROOM = 64;

/**
 * The fields within the field count and the embed total (`used` characters are the title's);
 * when some do not fit, the last one says how many are left out.
 */
function embedFields(fields: readonly ChatField[], used: number): EmbedField[] {
  const shown: EmbedField[] = [];
  let total = used;
  for (const [index, field] of fields.entries()) {
    const rendered = {
      name: clip(escapeMarkdown(field.name), DISCORD_LIMITS.fieldName) || '-',
      value: fieldValue(field),
      inline: field.inline ?? false,
    };
    const last = index === fields.length - 1;
    const slots = DISCORD_LIMITS.fields - (last ? 0 : 1);
    const room = DISCORD_LIMITS.embedTotal - (last ? 0 : MORE_FIELD_ROOM);
    total += rendered.name.length + rendered.value.length;
    if (shown.length >= slots || total > room) {
      const more = fields.length - shown.length;
      return [
        ...shown,
        { name: 'More', value: `${more} more not shown (Discord's size limit)`, inline: false },
      ];
    }
    shown.push(rendered);
  }
  return shown;
}

/** A value as code and/or a masked link, within the field value limit (a link too long is left out). */
function fieldValue(field: ChatField): string {
  const room = DISCORD_LIMITS.fieldValue;
  const text = field.code === true ? `\`${field.value.replaceAll('`', "'")}\`` : escapeMarkdown(field.value);
  const shown = clip(text, room) || '-';
  if (field.url === undefined) return shown;
  const linked = `[${shown}](${field.url})`;
  return linked.length <= room ? linked : shown;
}

/**
 * Backslash before what Discord's markdown gives a meaning: emphasis, code, spoilers, link
 * brackets, mentions (`<@id>`, `@everyone`) anywhere, headings, quotes and lists at a line's
 * start. Parentheses and the rest stay as they are, so a phone's preview of `content` reads clean.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_~`|[\]<@]/g, (c) => `\\${c}`).replace(/^(\s*)([#>-])/gm, '$1\\$2');
}
