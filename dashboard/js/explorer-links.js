import { el } from './dom.js';
import { shorten } from './format.js';

/**
 * Links to the block explorer the operator configured (`api.explorer`, served in /api/stats as
 * `explorer`): a template's placeholder ({hash} or {address}) is replaced by the value. Without a
 * template the value shows as plain text.
 */

const PLACEHOLDERS = { block: '{hash}', transaction: '{hash}', address: '{address}' };

/** The explorer URL of `value`, or null when `templates` has none for `kind`. */
export function explorerUrl(templates, kind, value) {
  const template = templates?.[kind];
  if (typeof template !== 'string' || !/^https?:\/\//.test(template)) return null;
  return template.replaceAll(PLACEHOLDERS[kind], encodeURIComponent(value));
}

/** `value` shortened to `keep` characters a side, as an explorer link when one is configured. */
export function explorerNode(templates, kind, value, keep = 8) {
  const text = keep === null ? value : shorten(value, keep);
  const url = explorerUrl(templates, kind, value);
  if (url === null) return el('span', { class: 'mono', title: value }, text);
  return el(
    'a',
    {
      href: url,
      title: value,
      class: 'mono explorer-link',
      'data-explorer': kind,
      target: '_blank',
      rel: 'noopener noreferrer',
    },
    text,
  );
}
