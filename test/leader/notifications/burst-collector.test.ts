import { describe, expect, it } from 'vitest';
import { BurstCollector } from '../../../src/leader/notifications/burst-collector.js';
import { type Burst, MAX_BURST_EVENTS } from '../../../src/leader/notifications/chat-message.js';
import type { NotificationTarget } from '../../../src/leader/notifications/notification-target.js';

function target(debounceMs: number): NotificationTarget {
  return {
    log: { test: 0 },
    events: ['block-found'],
    debounceMs,
    secrets: [],
    render: () => '',
    request: () => ({ url: '', headers: {}, body: '' }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('burst collector', () => {
  it('hands on one burst per target and event when the window from its first event ends', async () => {
    const bursts: Array<{ target: NotificationTarget; event: string; burst: Burst<unknown> }> = [];
    const collector = new BurstCollector((t, event, burst) => bursts.push({ target: t, event, burst }));
    const slow = target(150);
    const fast = target(30);
    collector.add(slow, 'block-found', 1);
    collector.add(fast, 'block-found', 1);
    collector.add(slow, 'block-orphaned', 'o');
    await sleep(80);
    expect(bursts).toHaveLength(1);
    collector.add(slow, 'block-found', 2); // joins the open window, which is not extended
    expect(collector.waiting()).toBe(3);
    await sleep(120);
    expect(bursts.map((b) => [b.target.debounceMs, b.event, b.burst.payloads])).toEqual([
      [30, 'block-found', [1]],
      [150, 'block-found', [1, 2]],
      [150, 'block-orphaned', ['o']],
    ]);
    expect(collector.waiting()).toBe(0);
  });

  it(`keeps the last ${MAX_BURST_EVENTS} events of a long burst and counts the rest`, async () => {
    const bursts: Array<Burst<unknown>> = [];
    const collector = new BurstCollector((_t, _e, burst) => bursts.push(burst));
    const chat = target(20);
    for (let i = 0; i < MAX_BURST_EVENTS + 5; i++) collector.add(chat, 'payment-sent', i);
    await sleep(60);
    expect(bursts).toHaveLength(1);
    expect(bursts[0]!.omitted).toBe(5);
    expect(bursts[0]!.payloads).toHaveLength(MAX_BURST_EVENTS);
    expect(bursts[0]!.payloads[0]).toBe(5);
  });

  it('ends every open window at once at shutdown, leaving no timer behind', async () => {
    const bursts: Array<Burst<unknown>> = [];
    const collector = new BurstCollector((_t, _e, burst) => bursts.push(burst));
    const chat = target(20);
    collector.add(chat, 'block-found', 1);
    collector.add(chat, 'block-found', 2);
    collector.add(target(20), 'block-orphaned', 3);
    collector.flushAll();
    expect(bursts.map((b) => b.payloads)).toEqual([[1, 2], [3]]);
    expect(collector.waiting()).toBe(0);
    await sleep(50);
    expect(bursts).toHaveLength(2);
  });
});
