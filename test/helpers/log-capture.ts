import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log/logger.js';

export interface LogCapture {
  readonly logger: Logger;
  /** Every record written so far, parsed, oldest first. */
  readonly records: Array<Record<string, unknown>>;
}

/** A real pino logger whose JSON lines are kept in memory, for tests that assert what is logged. */
export function captureLogs(level: 'debug' | 'info' = 'debug'): LogCapture {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line) records.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: createLogger({ level }, stream), records };
}
