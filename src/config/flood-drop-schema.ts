import { z } from 'zod';
import { positiveInt } from './schema-parts.js';

/** `floodDrop`: kernel drops of peers that keep connecting while refused (servers/flood-drop/). */
export const floodDropSchema = z
  .strictObject({
    refusals: z
      .number()
      .int()
      .min(0)
      .default(500)
      .describe(
        'Connections a peer (an IP; IPv6: its stratum.ipv6PrefixLength network) may have refused at accept in a burst (stratum: banned, or over its connection cap; API: over api.maxConnectionsPerPeer, or a live feed handshake refused with 429 or a feed connection closed for bad requests) before the kernel drops its new connections to that port for a while (a filter on the listening socket: no accept, no reset, no event-loop time). It earns them back at refusalsPerSec, so a miner or a browser retrying every few seconds never gets there. 0 turns it off. Needs Linux and the native addon (with stratum.processes > 1 the pool process drops on the stratum sockets it listens on for its children, from the refusals they report); otherwise floods are refused in Node as before.',
      ),
    refusalsPerSec: positiveInt
      .default(100)
      .describe('Refusals a second a peer earns back: a peer refused faster than this for long is flooding.'),
    dropSeconds: positiveInt.default(60).describe('Length of a first drop.'),
    maxDropSeconds: positiveInt
      .default(3600)
      .describe('A peer that floods again within an hour of its last drop gets twice as long, up to this.'),
  })
  .refine((v) => v.maxDropSeconds >= v.dropSeconds, {
    message: 'must be at least dropSeconds',
    path: ['maxDropSeconds'],
  });
