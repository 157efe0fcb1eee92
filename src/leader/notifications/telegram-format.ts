import { type ChatField, type ChatMessage, clip } from './chat-message.js';

/** Telegram's limit of a message's text (counted after entity parsing; the HTML is kept within it). */
export const TELEGRAM_MAX_TEXT = 4_096;

/** Longest value of a field before escaping; the line budget below keeps the whole text in bounds. */
const MAX_VALUE_CHARS = 1_024;
const CUT_MARK = '\n…';

/**
 * The JSON body of the Bot API's sendMessage: the headline in bold, then a line per field, in
 * Telegram's HTML (every value escaped), without link previews. Lines that do not fit in the
 * limit are left out and the cut is marked.
 */
export function telegramBody(message: ChatMessage, chatId: string): string {
  return JSON.stringify({
    chat_id: chatId,
    text: telegramText(message),
    parse_mode: 'HTML',
    disable_web_page_preview: true,
  });
}

export function telegramText(message: ChatMessage): string {
  let text = `<b>${escapeHtml(clip(message.headline, MAX_VALUE_CHARS))}</b>`;
  for (const field of message.fields) {
    const line = `\n<b>${escapeHtml(clip(field.name, MAX_VALUE_CHARS))}</b>: ${fieldValue(field)}`;
    if (text.length + line.length > TELEGRAM_MAX_TEXT - CUT_MARK.length) return `${text}${CUT_MARK}`;
    text += line;
  }
  return text;
}

function fieldValue(field: ChatField): string {
  let html = escapeHtml(clip(field.value, MAX_VALUE_CHARS));
  if (field.code === true) html = `<code>${html}</code>`;
  return field.url === undefined ? html : `<a href="${escapeHtml(field.url)}">${html}</a>`;
}

/** The characters Telegram's HTML parse mode requires as entities (`"` for attribute values). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => HTML_ENTITIES[c]!);
}

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
};
