import { z } from 'zod';

/**
 * `api.explorer`: link templates of a block explorer, which the dashboard turns block hashes,
 * transaction hashes and miner addresses into links with. A template is an http(s) URL holding
 * its placeholder; none configured: the dashboard shows plain text.
 */

/** A template that must hold `placeholder` and be an http(s) URL once it is filled. */
function linkTemplate(placeholder: string, what: string) {
  return z
    .string()
    .max(512)
    .refine((template) => template.includes(placeholder), { message: `must contain ${placeholder}` })
    .refine(isHttpUrl(placeholder), { message: 'must be an http:// or https:// URL' })
    .nullable()
    .default(null)
    .describe(
      `Explorer link of ${what}: an http(s) URL template where ${placeholder} is replaced; null: no link.`,
    );
}

function isHttpUrl(placeholder: string): (template: string) => boolean {
  return (template) => {
    try {
      const url = new URL(template.replaceAll(placeholder, 'x'));
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  };
}

export const explorerSchema = z
  .strictObject({
    block: linkTemplate('{hash}', 'a block (e.g. "https://explorer.example/block/{hash}")'),
    transaction: linkTemplate('{hash}', 'a transaction (e.g. "https://explorer.example/tx/{hash}")'),
    address: linkTemplate('{address}', 'a miner address (e.g. "https://explorer.example/address/{address}")'),
  })
  .describe('Block explorer link templates the dashboard renders links with (served in /api/stats).');

export type ExplorerLinks = z.infer<typeof explorerSchema>;
