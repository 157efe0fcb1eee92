/**
 * The parts of a target URL that may hold its token (Discord's path does, many webhook URLs carry
 * one in the path or the query), to keep out of logs: a receiver's error text may echo the URL.
 * A bare "/" is no secret (and replacing it would mangle every text).
 */
export function urlSecrets(url: URL): string[] {
  return [url.pathname, url.search].filter((part) => part.length > 1);
}
