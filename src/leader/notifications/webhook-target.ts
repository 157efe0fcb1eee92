import type { WebhookConfig } from '../../config/notifications-schema.js';
import type { Logger } from '../../log/logger.js';
import { type NotificationTarget, type SecretEnv, secretFromEnv, targetUrl } from './notification-target.js';
import { urlSecrets } from './url-secrets.js';
import { webhookBody } from './webhook-payload.js';
import { signWebhook, WEBHOOK_HEADERS } from './webhook-signature.js';

export type WebhookTargetConfig = Pick<WebhookConfig, 'url' | 'events'> &
  Partial<Pick<WebhookConfig, 'secretEnv' | 'includeAddresses'>>;

/**
 * A signed JSON webhook: one notification per event (never debounced: receivers are programs),
 * signed with the secret from `secretEnv` when it is set.
 */
export function webhookTarget(
  config: WebhookTargetConfig,
  index: number,
  modules: { readonly env: SecretEnv; readonly logger: Logger },
): NotificationTarget {
  const key = `notifications.webhooks.${index}`;
  const url = targetUrl(config.url, `${key}.url`, index);
  const secret =
    config.secretEnv === undefined
      ? undefined
      : secretFromEnv(modules.env, config.secretEnv, `${key}.secretEnv`, index);
  const log = { webhook: index, origin: url.origin };
  if (secret === undefined) modules.logger.warn(log, 'webhook has no secretEnv: requests are unsigned');
  const options = { includeAddresses: config.includeAddresses ?? false };
  return {
    log,
    events: config.events,
    debounceMs: 0,
    secrets: urlSecrets(url),
    render: (event, burst, meta) => {
      const [payload] = burst.payloads;
      if (payload === undefined) throw new RangeError('a webhook notification needs its event');
      return webhookBody(event, payload, meta, options);
    },
    request: (notification, attemptAtMs) => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'fuego-pool-webhook/1',
        [WEBHOOK_HEADERS.event]: notification.event,
        [WEBHOOK_HEADERS.delivery]: notification.id,
        [WEBHOOK_HEADERS.timestamp]: String(attemptAtMs),
      };
      if (secret !== undefined) {
        headers[WEBHOOK_HEADERS.signature] = signWebhook(secret, attemptAtMs, notification.body);
      }
      return { url: url.href, headers, body: notification.body };
    },
  };
}
