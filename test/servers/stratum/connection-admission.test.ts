import { describe, expect, it } from 'vitest';
import { ConnectionCounter } from '../../../src/servers/stratum/connection-admission.js';

describe('ConnectionCounter', () => {
  it('refuses past the per-IP cap, and past the total cap whatever the IP', () => {
    const counter = new ConnectionCounter({ maxConnections: 3, maxConnectionsPerIp: 2 });
    expect(counter.admit('10.0.0.1')).toBe('admit');
    expect(counter.admit('10.0.0.1')).toBe('admit');
    expect(counter.admit('10.0.0.1')).toBe('per-ip-limit');
    expect(counter.admit('10.0.0.2')).toBe('admit');
    expect(counter.admit('10.0.0.3')).toBe('max-connections');
    expect(counter.total).toBe(3);
    counter.release('10.0.0.1');
    expect(counter.countOf('10.0.0.1')).toBe(1);
    expect(counter.admit('10.0.0.3')).toBe('admit');
  });

  it('a release for an IP it holds nothing of changes nothing', () => {
    const counter = new ConnectionCounter({ maxConnections: 1, maxConnectionsPerIp: 1 });
    counter.release('10.0.0.9');
    expect(counter.total).toBe(0);
    expect(counter.admit('10.0.0.1')).toBe('admit');
    counter.release('10.0.0.1');
    counter.release('10.0.0.1');
    expect(counter.total).toBe(0);
    expect(counter.admit('10.0.0.2')).toBe('admit');
  });
});
