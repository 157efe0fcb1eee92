import type { Logger } from '../log/logger.js';

/** Something the composition root started and must stop. */
export interface Part {
  readonly name: string;
  stop(): Promise<void> | void;
}

/** Stops parts newest first (miners first, then the work in flight, then storage and clients). */
export async function stopParts(parts: Part[], logger: Logger): Promise<void> {
  while (parts.length > 0) {
    const part = parts.pop()!;
    try {
      await part.stop();
    } catch (error) {
      logger.warn({ err: error, part: part.name }, 'error while stopping');
    }
  }
}
