import { ConfigError } from '../config/load-config.js';

/** What one process can run (DESIGN "Roles and scale"). */
export type PoolRole = 'stratum' | 'leader' | 'api';

export const POOL_ROLES: readonly PoolRole[] = Object.freeze(['stratum', 'leader', 'api']);

/**
 * The roles named by config `roles` or `--role` (each entry may be a comma list); `all` is every
 * role. Unknown names are a config error (USAGE-level mistakes must not start a partial pool).
 */
export function resolveRoles(names: readonly string[]): ReadonlySet<PoolRole> {
  const roles = new Set<PoolRole>();
  for (const entry of names) {
    for (const raw of entry.split(',')) {
      const name = raw.trim();
      if (name === 'all') for (const role of POOL_ROLES) roles.add(role);
      else if ((POOL_ROLES as readonly string[]).includes(name)) roles.add(name as PoolRole);
      else {
        throw new ConfigError('CONFIG_INVALID', `invalid configuration:\n  roles: unknown role "${name}"`, {
          issues: [`roles: unknown role "${name}" (stratum, leader, api or all)`],
        });
      }
    }
  }
  if (roles.size === 0) {
    throw new ConfigError('CONFIG_INVALID', 'invalid configuration:\n  roles: at least one role', {
      issues: ['roles: at least one role'],
    });
  }
  return roles;
}
