import { z } from 'zod';
import { type BlockTemplate, parseBlockTemplate } from '../fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../fuego/hex.js';
import type { FastHash } from '../fuego/keccak.js';
import type { ActiveTemplate, TemplateChange } from '../pool/template-source.js';

/**
 * What the leader publishes for each template: the daemon's getblocktemplate answer as it came
 * (blob, reserved offset, height, difficulty) plus what was asked and how jobs are built
 * (reserve size, parent style), so any node rebuilds the same BlockTemplate with
 * parseBlockTemplate. Template ids are per process, so the leader's id travels only as `seq`,
 * for ordering; stratum nodes number templates themselves.
 */
const templateMessageSchema = z.strictObject({
  v: z.literal(1),
  /** Fencing token of the leader that published it. */
  token: z.string(),
  /** The leader's template id (grows within one leadership). */
  seq: z.number().int().min(0),
  change: z.enum(['new-block', 'refresh']),
  height: z.number().int().min(0),
  /** Network difficulty, decimal (may exceed 2^53). */
  difficulty: z.string().regex(/^\d{1,40}$/),
  blob: z.string().regex(/^([0-9a-f]{2})+$/),
  reservedOffset: z.number().int().min(0),
  reserveSize: z.number().int().min(1).max(255),
  parentStyle: z.enum(['pool', 'daemon-miner']),
  prevHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** When the leader fetched it (leader's clock). */
  fetchedAtMs: z.number().int().min(0),
});

export type TemplateMessage = z.infer<typeof templateMessageSchema>;

export function templateMessageOf(
  active: ActiveTemplate,
  change: TemplateChange,
  token: string,
): TemplateMessage {
  const { template } = active;
  return {
    v: 1,
    token,
    seq: active.id,
    change,
    height: active.height,
    difficulty: active.networkDifficulty.toString(),
    blob: bytesToHex(template.blob),
    reservedOffset: template.reservedOffset,
    reserveSize: template.reserveSize,
    parentStyle: template.parentStyle,
    prevHash: active.prevHash,
    fetchedAtMs: active.receivedAtMs,
  };
}

/** Parses a message off the wire; null when it is not one (logged by the caller, never thrown). */
export function parseTemplateMessage(text: string): TemplateMessage | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = templateMessageSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The BlockTemplate the leader built from the same daemon answer (throws CodecError if invalid). */
export function blockTemplateOf(message: TemplateMessage, fastHash?: FastHash): BlockTemplate {
  return parseBlockTemplate({
    blob: hexToBytes(message.blob),
    reservedOffset: message.reservedOffset,
    reserveSize: message.reserveSize,
    height: message.height,
    difficulty: BigInt(message.difficulty),
    parentStyle: message.parentStyle,
    ...(fastHash ? { fastHash } : {}),
  });
}
