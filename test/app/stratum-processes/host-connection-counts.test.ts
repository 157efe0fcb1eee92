import { describe, expect, it } from 'vitest';
import { HostConnectionCounts } from '../../../src/app/stratum-processes/host-connection-counts.js';
import { NO_AGGREGATE_CAP } from '../../servers/stratum/admission-caps.js';

describe('HostConnectionCounts', () => {
  it('applies the caps to the connections of all children together', () => {
    const counts = new HostConnectionCounts({
      ...NO_AGGREGATE_CAP,
      maxConnections: 10,
      maxConnectionsPerIp: 3,
    });
    expect(counts.admit(0, '10.0.0.1')).toBe('admit');
    expect(counts.admit(1, '10.0.0.1')).toBe('admit');
    expect(counts.admit(0, '10.0.0.1')).toBe('admit');
    expect(counts.admit(1, '10.0.0.1')).toBe('per-ip-limit');
    counts.release(1, '10.0.0.1');
    expect(counts.admit(1, '10.0.0.1')).toBe('admit');
    expect(counts.total).toBe(3);
  });

  it("gives back a dead child's connections, and ignores releases a child does not hold", () => {
    const counts = new HostConnectionCounts({
      ...NO_AGGREGATE_CAP,
      maxConnections: 4,
      maxConnectionsPerIp: 4,
    });
    counts.admit(0, '10.0.0.1');
    counts.admit(0, '10.0.0.1');
    counts.admit(0, '10.0.0.2');
    counts.admit(1, '10.0.0.1');
    expect(counts.admit(1, '10.0.0.3')).toBe('max-connections');
    // Child 1 holds one connection of 10.0.0.1 and none of 10.0.0.2.
    counts.release(1, '10.0.0.2');
    expect(counts.total).toBe(4);
    counts.releaseChild(0);
    expect(counts.total).toBe(1);
    counts.release(0, '10.0.0.1');
    expect(counts.total).toBe(1);
    expect(counts.admit(0, '10.0.0.1')).toBe('admit');
    expect(counts.admit(0, '10.0.0.1')).toBe('admit');
    expect(counts.admit(0, '10.0.0.1')).toBe('admit');
    expect(counts.admit(1, '10.0.0.1')).toBe('max-connections');
  });
});
