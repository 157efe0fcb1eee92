import { describe, expect, it } from 'vitest';
import { ReplyQueue } from '../../../src/servers/stratum/reply-queue.js';

function queueWithLog() {
  const events: string[] = [];
  const queue = new ReplyQueue({ send: (line) => events.push(`send ${line}`) });
  return { queue, events };
}

describe('ReplyQueue', () => {
  it('writes replies in request order when they finish out of order', () => {
    const { queue, events } = queueWithLog();
    const [a, b, c] = [queue.reserve(), queue.reserve(), queue.reserve()];
    queue.fill(c, 'c', undefined);
    queue.drain();
    queue.fill(b, 'b', undefined);
    queue.drain();
    expect(events).toEqual([]);
    expect(queue.length).toBe(3);
    queue.fill(a, 'a', undefined);
    queue.drain();
    expect(events).toEqual(['send a', 'send b', 'send c']);
    expect(queue.length).toBe(0);
  });

  it("runs each reply's after right after its own line, before the next line", () => {
    const { queue, events } = queueWithLog();
    const [a, b] = [queue.reserve(), queue.reserve()];
    queue.fill(b, 'b', () => events.push('after b'));
    queue.fill(a, 'a', () => events.push('after a'));
    queue.drain();
    expect(events).toEqual(['send a', 'after a', 'send b', 'after b']);
  });

  it('a position finished without a reply writes nothing but still runs its after and frees its turn', () => {
    const { queue, events } = queueWithLog();
    const [a, b] = [queue.reserve(), queue.reserve()];
    queue.fill(b, 'b', undefined);
    queue.fill(a, null, () => events.push('after a'));
    queue.drain();
    expect(events).toEqual(['after a', 'send b']);
    expect(queue.length).toBe(0);
  });

  it('stops at the first unfinished position and counts it', () => {
    const { queue, events } = queueWithLog();
    const [a, b, c] = [queue.reserve(), queue.reserve(), queue.reserve()];
    queue.fill(a, 'a', undefined);
    queue.fill(c, 'c', undefined);
    queue.drain();
    expect(events).toEqual(['send a']);
    expect(queue.length).toBe(2);
    queue.fill(b, 'b', undefined);
    queue.drain();
    expect(events).toEqual(['send a', 'send b', 'send c']);
  });
});
