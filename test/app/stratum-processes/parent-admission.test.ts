import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChildMessage } from '../../../src/app/stratum-processes/child-messages.js';
import { ParentConnectionAdmission } from '../../../src/app/stratum-processes/parent-admission.js';

afterEach(() => {
  vi.useRealTimers();
});

function setup(connected = true, timeoutMs = 5_000) {
  const sent: ChildMessage[] = [];
  const admission = new ParentConnectionAdmission((message) => {
    if (!connected) return false;
    sent.push(message);
    return true;
  }, timeoutMs);
  return { admission, sent };
}

describe("a stratum child's connection caps, asked of the parent", () => {
  it('asks with the IP and opens or refuses as the parent answers', async () => {
    const { admission, sent } = setup();
    const first = admission.admit('10.0.0.1');
    const second = admission.admit('10.0.0.2');
    expect(sent).toEqual([
      { kind: 'admit', requestId: 1, ip: '10.0.0.1' },
      { kind: 'admit', requestId: 2, ip: '10.0.0.2' },
    ]);
    admission.answer(2, '10.0.0.2', 'per-ip-limit');
    admission.answer(1, '10.0.0.1', 'admit');
    expect(await first).toBe('admit');
    expect(await second).toBe('per-ip-limit');
    admission.release('10.0.0.1');
    expect(sent[2]).toEqual({ kind: 'release', ip: '10.0.0.1' });
  });

  it('refuses when the parent is gone, or does not answer in time; a late yes is given back', async () => {
    vi.useFakeTimers();
    expect(setup(false).admission.admit('10.0.0.1')).toBe('shutting-down');

    const { admission, sent } = setup(true, 1_000);
    const waiting = admission.admit('10.0.0.1');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await waiting).toBe('admission-timeout');
    admission.answer(1, '10.0.0.1', 'admit');
    expect(sent.at(-1)).toEqual({ kind: 'release', ip: '10.0.0.1' });
    admission.answer(1, '10.0.0.1', 'per-ip-limit');
    expect(sent).toHaveLength(2);
  });

  it('closing refuses the connections still waiting and every later one', async () => {
    const { admission, sent } = setup();
    const waiting = admission.admit('10.0.0.1');
    admission.close();
    expect(await waiting).toBe('shutting-down');
    expect(admission.admit('10.0.0.2')).toBe('shutting-down');
    expect(sent).toHaveLength(1);
  });
});
