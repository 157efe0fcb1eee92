import { describe, expect, it } from 'vitest';
import { ConnectionCounter } from '../../../src/servers/stratum/connection-admission.js';
import { NO_AGGREGATE_CAP } from './admission-caps.js';

describe('ConnectionCounter', () => {
  it('refuses past the per-IP cap, and past the total cap whatever the IP', () => {
    const counter = new ConnectionCounter({ ...NO_AGGREGATE_CAP, maxConnections: 3, maxConnectionsPerIp: 2 });
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
    const counter = new ConnectionCounter({ ...NO_AGGREGATE_CAP, maxConnections: 1, maxConnectionsPerIp: 1 });
    counter.release('10.0.0.9');
    expect(counter.total).toBe(0);
    expect(counter.admit('10.0.0.1')).toBe('admit');
    counter.release('10.0.0.1');
    counter.release('10.0.0.1');
    expect(counter.total).toBe(0);
    expect(counter.admit('10.0.0.2')).toBe('admit');
  });

  it('caps an IPv6 aggregate network (/48) across its /64 peers, and only IPv6', () => {
    const counter = new ConnectionCounter({
      maxConnections: 100,
      maxConnectionsPerIp: 2,
      maxConnectionsPerIpv6Aggregate: 3,
      ipv6AggregatePrefixLength: 48,
    });
    // Three /64 peer keys of one /48 (as peerKey makes them), then a fourth.
    expect(counter.admit('2001:db8:7:1::/64')).toBe('admit');
    expect(counter.admit('2001:db8:7:2::/64')).toBe('admit');
    expect(counter.admit('2001:db8:7:3::/64')).toBe('admit');
    expect(counter.admit('2001:db8:7:4::/64')).toBe('per-network-limit');
    expect(counter.admit('2001:db8:8:1::/64')).toBe('admit'); // another /48
    for (let i = 0; i < 5; i++) counter.release(`10.0.0.${i}`); // IPv4 holds nothing: no effect
    counter.release('2001:db8:7:2::/64');
    expect(counter.admit('2001:db8:7:4::/64')).toBe('admit');
    expect(counter.admit('10.0.0.1')).toBe('admit');
    expect(counter.admit('10.0.0.1')).toBe('admit');
    expect(counter.admit('10.0.0.1')).toBe('per-ip-limit');
  });
});
