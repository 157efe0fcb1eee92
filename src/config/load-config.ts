import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { FuegoPoolError } from '../errors.js';
import { configSchema, type PoolConfig } from './schema.js';

export type ConfigErrorCode = 'CONFIG_INVALID' | 'CONFIG_UNREADABLE';

export class ConfigError extends FuegoPoolError<ConfigErrorCode> {}

/** One line per problem, each starting with the full dotted key so the operator knows what to edit. */
export function describeIssues(error: z.ZodError, keyPrefix = ''): string[] {
  return error.issues.map((issue) => {
    const at = [keyPrefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${at ? `${at}.` : ''}${key}: unknown key`).join('\n');
    }
    return `${at || '(root)'}: ${issue.message}`;
  });
}

/** Validates a plain object, fills defaults and returns a deeply frozen config (undefined: all defaults). */
export function parseConfig(input: unknown): Readonly<PoolConfig> {
  // Only undefined means "no config": a file holding `null` is a mistake, not an empty config.
  const result = configSchema.safeParse(input === undefined ? {} : input);
  if (!result.success) {
    const lines = describeIssues(result.error);
    throw new ConfigError('CONFIG_INVALID', `invalid configuration:\n  ${lines.join('\n  ')}`, {
      issues: lines,
    });
  }
  return deepFreeze(result.data);
}

/** Reads a JSON config file (or none, for all defaults) and validates it. */
export function loadConfigFile(path: string | undefined): Readonly<PoolConfig> {
  return parseConfig(path === undefined ? {} : readConfigJson(path));
}

/**
 * The JSON of a config file, unvalidated. CONFIG_UNREADABLE names the file and why: the system's
 * reason (no such file, permission denied, a directory) or where the JSON breaks.
 */
export function readConfigJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `cannot read config file ${path}: ${(cause as Error).message}`,
      { path },
      { cause },
    );
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `config file ${path} is not valid JSON: ${(cause as Error).message}`,
      { path },
      { cause },
    );
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
