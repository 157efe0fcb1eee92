import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

export interface LoggerConfig {
  level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** Paths of secrets that must never reach a log line, whatever module logs them. */
const REDACTED_PATHS = ['*.password', '*.token', '*.adminToken', '*.privateKey', 'config.api.adminToken'];

/**
 * The one root logger of a process. Modules take a child of it (`logger.child({ module: 'x' })`)
 * from the composition root instead of creating their own.
 */
export function createLogger(config: LoggerConfig, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  return destination ? pino(options, destination) : pino(options, pino.destination(2));
}
