import { describe, expect, it } from 'vitest';
import type { LeaderRole } from '../../../src/app/leader-role.js';
import type { StratumRole } from '../../../src/app/stratum-role.js';
import type { RedisTemplateSource } from '../../../src/cluster/redis-template-source.js';
import {
  controlConfigSchema,
  defaultControlSocketPath,
  defaultControlSocketPaths,
} from '../../../src/config/control-schema.js';
import { notificationConfigSchema } from '../../../src/config/notifications-schema.js';
import type { LeaderLoop } from '../../../src/leader/leader-loop.js';
import type { WebhookNotifierOptions } from '../../../src/leader/notifications/webhook-notifier.js';
import type { DaemonTemplateSource } from '../../../src/leader/templates/daemon-template-source.js';
import type { PoolEventBus } from '../../../src/pool/events.js';
import type { PoolBackend } from '../../../src/pool/pool-backend.js';
import type {
  ControlBackend,
  ControlPayouts,
  ControlStratum,
  ControlTemplates,
} from '../../../src/servers/control/control-handler.js';
import type { ControlServerModules } from '../../../src/servers/control/control-server.js';
import type { StratumServer } from '../../../src/servers/stratum/stratum-server.js';

/**
 * Compile-time: the concrete parts PoolNode owns fit the control server's narrow interfaces, and
 * the parsed config sections fit the constructors' options (tsc fails here if either drifts).
 */
const wiringFits = {
  backend: (part: PoolBackend): ControlBackend => part,
  stratum: (part: StratumServer): ControlStratum => part,
  templates: (part: DaemonTemplateSource): ControlTemplates => part,
  servedTemplates: (part: RedisTemplateSource): ControlTemplates => part,
  leader: (part: LeaderLoop): ControlPayouts => part,
  events: (bus: PoolEventBus): ControlServerModules['events'] => bus,
  /** The exact expressions of the wiring proposed for PoolNode.start (roles may be absent). */
  poolNode: (
    served: StratumRole | null,
    polled: LeaderRole | null,
  ): Omit<ControlServerModules, 'stats' | 'logger'> => ({
    backend: served?.backend ?? null,
    stratum: served?.server ?? null,
    templates: () => polled?.templates() ?? served?.templates ?? null,
    leader: polled === null ? null : () => polled.loop(),
  }),
  notifications: (
    section: Readonly<ReturnType<typeof notificationConfigSchema.parse>>,
  ): WebhookNotifierOptions => section,
};

describe('config sections for the lead to add to src/config/schema.ts', () => {
  it('has the wiring checks compiled in', () => {
    expect(Object.keys(wiringFits)).toHaveLength(8);
  });

  it('parse from an absent section (as section() prefaults them) with the documented defaults', () => {
    expect(controlConfigSchema.prefault({}).parse(undefined)).toEqual({
      enabled: true,
      socketPath: defaultControlSocketPath(),
      hashrateWindowMs: 600_000,
    });
    expect(notificationConfigSchema.prefault({}).parse(undefined)).toEqual({
      webhooks: [],
      timeoutMs: 5_000,
      maxRetries: 5,
      initialBackoffMs: 1_000,
      maxBackoffMs: 300_000,
      maxQueueSize: 1_000,
      concurrency: 2,
    });
  });

  it('refuses relative, over-long and unknown control settings', () => {
    expect(controlConfigSchema.safeParse({ socketPath: 'pool.sock' }).success).toBe(false);
    expect(controlConfigSchema.safeParse({ socketPath: `/tmp/${'x'.repeat(120)}.sock` }).success).toBe(false);
    expect(controlConfigSchema.safeParse({ socket: '/tmp/a.sock' }).success).toBe(false);
  });
});

describe('default control socket path', () => {
  it('is in a directory private to the user, never directly in /tmp', () => {
    expect(defaultControlSocketPaths({ uid: 0, runtimeDir: '/run/user/0', ownsRunDir: true })).toEqual([
      '/run/fuego-pool/control.sock',
    ]);
    expect(defaultControlSocketPaths({ uid: 1000, runtimeDir: '/run/user/1000', ownsRunDir: false })).toEqual(
      ['/run/user/1000/fuego-pool/control.sock', '/tmp/fuego-pool-1000/control.sock'],
    );
    // The systemd unit's RuntimeDirectory, owned by the service user, comes first.
    expect(defaultControlSocketPaths({ uid: 998, runtimeDir: undefined, ownsRunDir: true })).toEqual([
      '/run/fuego-pool/control.sock',
      '/tmp/fuego-pool-998/control.sock',
    ]);
    expect(defaultControlSocketPath({ uid: 1000, runtimeDir: undefined, ownsRunDir: false })).toBe(
      '/tmp/fuego-pool-1000/control.sock',
    );
  });
});
