import { describe, expect, it } from 'vitest';
import {
  type AdmissionVerdict,
  type ConnectionAdmission,
  ConnectionCounter,
  ProcessConnectionCap,
} from '../../../src/servers/stratum/connection-admission.js';
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

describe('ProcessConnectionCap', () => {
  const roomy = () =>
    new ConnectionCounter({ ...NO_AGGREGATE_CAP, maxConnections: 100, maxConnectionsPerIp: 100 });

  it('refuses past its cap before asking the host caps, and admits again after a release', () => {
    const host = roomy();
    const cap = new ProcessConnectionCap(2, host);
    expect(cap.admit('10.0.0.1')).toBe('admit');
    expect(cap.admit('10.0.0.2')).toBe('admit');
    expect(cap.admit('10.0.0.3')).toBe('open-files');
    expect(host.total).toBe(2);
    cap.release('10.0.0.1');
    expect(host.total).toBe(1);
    expect(cap.admit('10.0.0.3')).toBe('admit');
  });

  it('a refusal of the host caps takes no room in the process', () => {
    const host = new ConnectionCounter({ ...NO_AGGREGATE_CAP, maxConnections: 100, maxConnectionsPerIp: 1 });
    const cap = new ProcessConnectionCap(2, host);
    expect(cap.admit('10.0.0.1')).toBe('admit');
    expect(cap.admit('10.0.0.1')).toBe('per-ip-limit');
    expect(cap.admit('10.0.0.2')).toBe('admit');
    expect(cap.admit('10.0.0.3')).toBe('open-files');
  });

  it('counts a connection while the host (a parent process) is still answering, so a burst cannot overshoot', async () => {
    const answers: Array<(verdict: AdmissionVerdict) => void> = [];
    const asking: ConnectionAdmission = {
      admit: () => new Promise<AdmissionVerdict>((resolve) => answers.push(resolve)),
      release: () => undefined,
    };
    const cap = new ProcessConnectionCap(1, asking);
    const first = cap.admit('10.0.0.1');
    expect(cap.admit('10.0.0.2')).toBe('open-files');
    answers[0]!('per-ip-limit');
    expect(await first).toBe('per-ip-limit');
    const second = cap.admit('10.0.0.2');
    answers[1]!('admit');
    expect(await second).toBe('admit');
  });
});
