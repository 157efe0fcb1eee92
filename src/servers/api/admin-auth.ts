import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './api-errors.js';

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Checks an `Authorization: Bearer <token>` header against the configured admin token. Only the
 * header decides: never the client IP, X-Forwarded-For, Host or any other header a proxy or a
 * client may forge. Both sides are hashed first so the comparison is constant-time whatever the
 * lengths. Throws ADMIN_DISABLED (no token configured) or UNAUTHORIZED.
 */
export function assertAdmin(adminToken: string | null, authorization: string | undefined): void {
  if (adminToken === null) throw new ApiError('ADMIN_DISABLED');
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  const presented = match?.[1];
  const valid = presented !== undefined && timingSafeEqual(digest(presented), digest(adminToken));
  if (!valid) throw new ApiError('UNAUTHORIZED');
}
