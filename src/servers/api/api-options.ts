import { type ApiOptions, type ApiOptionsInput, apiOptionsSchema } from '../../config/api-schema.js';
import { FuegoPoolError } from '../../errors.js';

/** Env var holding the admin bearer token (never in the config file, never logged). */
export const ADMIN_TOKEN_ENV = 'FUEGO_POOL_ADMIN_TOKEN';
const MIN_ADMIN_TOKEN_LENGTH = 16;

export class ApiConfigError extends FuegoPoolError<'INVALID_API_OPTIONS' | 'WEAK_ADMIN_TOKEN'> {}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Validates (naming the bad key), fills defaults, freezes. The input is not modified. */
export function parseApiOptions(input: ApiOptionsInput = {}): ApiOptions {
  const result = apiOptionsSchema.safeParse(structuredClone(input));
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = issue === undefined ? '' : issue.path.join('.');
    throw new ApiConfigError('INVALID_API_OPTIONS', `api.${key}: ${issue?.message ?? 'invalid'}`, { key });
  }
  return deepFreeze(result.data);
}

/**
 * The admin token from the environment, or null when unset (admin routes then answer
 * ADMIN_DISABLED). A token shorter than 16 characters is refused at start rather than guessed.
 */
export function adminTokenFromEnv(env: Readonly<Record<string, string | undefined>>): string | null {
  const token = env[ADMIN_TOKEN_ENV];
  if (token === undefined || token === '') return null;
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ApiConfigError(
      'WEAK_ADMIN_TOKEN',
      `${ADMIN_TOKEN_ENV} must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`,
    );
  }
  return token;
}
