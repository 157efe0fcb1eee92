import type { DiscordConfig, TelegramConfig } from '../../config/notifications-schema.js';
import { discordBody } from './discord-format.js';
import type { ChatContext } from './event-format.js';
import { formatOf } from './event-formats.js';
import { NotificationError } from './notification-errors.js';
import { type NotificationTarget, type SecretEnv, secretFromEnv, targetUrl } from './notification-target.js';
import { telegramBody } from './telegram-format.js';
import { urlSecrets } from './url-secrets.js';

export type DiscordTargetConfig = Pick<DiscordConfig, 'url' | 'events' | 'debounceMs'>;
export type TelegramTargetConfig = Pick<
  TelegramConfig,
  'botTokenEnv' | 'chatId' | 'events' | 'debounceMs' | 'apiBaseUrl'
>;

const JSON_HEADERS = { 'content-type': 'application/json', 'user-agent': 'fuego-pool-webhook/1' } as const;

/** Bot API tokens: "<bot id>:<secret>", safe in a URL path. */
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{1,200}$/;

/** A Discord channel webhook: execute-webhook messages, bursts debounced into one. */
export function discordTarget(
  config: DiscordTargetConfig,
  index: number,
  context: ChatContext,
  clock: () => number,
): NotificationTarget {
  const url = targetUrl(config.url, `notifications.discord.${index}.url`, index);
  return {
    // The path holds the webhook's token: logs show the origin only.
    log: { discord: index, origin: url.origin },
    events: config.events,
    debounceMs: config.debounceMs,
    secrets: urlSecrets(url),
    render: (event, burst) => discordBody(formatOf(event).chat(burst, context), clock()),
    request: (notification) => ({ url: url.href, headers: JSON_HEADERS, body: notification.body }),
  };
}

/**
 * A Telegram chat: the Bot API's sendMessage at `<apiBaseUrl>/bot<token>/sendMessage`, the token
 * read from the environment variable `botTokenEnv` (never from the config file, never logged).
 */
export function telegramTarget(
  config: TelegramTargetConfig,
  index: number,
  context: ChatContext,
  env: SecretEnv,
): NotificationTarget {
  const key = `notifications.telegram.${index}`;
  const base = targetUrl(config.apiBaseUrl, `${key}.apiBaseUrl`, index);
  const token = secretFromEnv(env, config.botTokenEnv, `${key}.botTokenEnv`, index);
  if (!BOT_TOKEN.test(token)) {
    throw new NotificationError(
      'INVALID_BOT_TOKEN',
      `${key}.botTokenEnv: environment variable ${config.botTokenEnv} does not hold a bot token (<digits>:<letters>)`,
      { index, env: config.botTokenEnv },
    );
  }
  const url = new URL(`${base.pathname.replace(/\/+$/, '')}/bot${token}/sendMessage`, base);
  return {
    log: { telegram: index, origin: base.origin },
    events: config.events,
    debounceMs: config.debounceMs,
    secrets: [token],
    render: (event, burst) => telegramBody(formatOf(event).chat(burst, context), config.chatId),
    request: (notification) => ({ url: url.href, headers: JSON_HEADERS, body: notification.body }),
  };
}
