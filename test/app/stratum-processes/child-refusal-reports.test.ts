import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ChildMessage,
  isChildMessage,
  MAX_REFUSAL_PEERS,
} from '../../../src/app/stratum-processes/child-messages.js';
import {
  ChildRefusalReports,
  REFUSAL_REPORT_INTERVAL_MS,
} from '../../../src/app/stratum-processes/child-refusal-reports.js';

afterEach(() => {
  vi.useRealTimers();
});

function reports(): { reports: ChildRefusalReports; sent: ChildMessage[] } {
  const sent: ChildMessage[] = [];
  return { reports: new ChildRefusalReports((message) => sent.push(message)), sent };
}

describe("a stratum child's refusal reports to the pool process", () => {
  it('sends the refusals of an interval as one message, counted per peer', () => {
    vi.useFakeTimers();
    const { reports: child, sent } = reports();
    for (let i = 0; i < 5_000; i++) child.noteRefusal('127.0.0.2', 'banned');
    child.noteRefusal('2001:db8::/64', 'protocol-violation');
    child.noteRefusal('127.0.0.3', 'login-failed');
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(REFUSAL_REPORT_INTERVAL_MS);
    expect(sent).toEqual([
      {
        kind: 'refusals',
        peers: [
          ['127.0.0.2', 5_000],
          ['2001:db8::/64', 1],
          ['127.0.0.3', 1],
        ],
      },
    ]);
    vi.advanceTimersByTime(10 * REFUSAL_REPORT_INTERVAL_MS);
    expect(sent).toHaveLength(1); // nothing more to say: no message
  });

  it("leaves out the connection caps' refusals: the pool process gave those verdicts and noted them", () => {
    vi.useFakeTimers();
    const { reports: child, sent } = reports();
    child.noteRefusal('127.0.0.2', 'connection-cap');
    vi.advanceTimersByTime(REFUSAL_REPORT_INTERVAL_MS);
    expect(sent).toEqual([]);
  });

  it('sends at once when an interval has as many peers as one message holds', () => {
    vi.useFakeTimers();
    const { reports: child, sent } = reports();
    for (let i = 0; i < MAX_REFUSAL_PEERS + 1; i++) child.noteRefusal(`10.0.${i >> 8}.${i & 0xff}`, 'banned');
    expect(sent).toHaveLength(1);
    expect((sent[0] as { readonly peers: readonly unknown[] }).peers).toHaveLength(MAX_REFUSAL_PEERS);
    expect(isChildMessage(sent[0])).toBe(true);
    vi.advanceTimersByTime(REFUSAL_REPORT_INTERVAL_MS);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual({ kind: 'refusals', peers: [['10.0.4.0', 1]] });
  });

  it('sends what it counted when it closes, and nothing after', () => {
    const { reports: child, sent } = reports();
    child.noteRefusal('127.0.0.2', 'banned');
    child.close();
    child.noteRefusal('127.0.0.2', 'banned');
    expect(sent).toEqual([{ kind: 'refusals', peers: [['127.0.0.2', 1]] }]);
    expect(child.dropping()).toBe(0); // the pool process counts the dropped peers
  });
});

describe('the refusals message as the pool process checks it', () => {
  it('takes bounded lists of peer keys with counts of 1 or more, and nothing else', () => {
    const ok = (peers: unknown) => isChildMessage({ kind: 'refusals', peers });
    expect(ok([['127.0.0.2', 3]])).toBe(true);
    expect(ok([])).toBe(true);
    expect(ok(undefined)).toBe(false);
    expect(ok([['127.0.0.2', 0]])).toBe(false);
    expect(ok([['127.0.0.2', 1.5]])).toBe(false);
    expect(ok([['127.0.0.2', Number.POSITIVE_INFINITY]])).toBe(false);
    expect(ok([['', 1]])).toBe(false);
    expect(ok([['x'.repeat(65), 1]])).toBe(false);
    expect(ok([['127.0.0.2', 1, 'extra']])).toBe(false);
    expect(ok([{ peer: '127.0.0.2', count: 1 }])).toBe(false);
    expect(ok(Array.from({ length: MAX_REFUSAL_PEERS + 1 }, () => ['127.0.0.2', 1]))).toBe(false);
  });
});
