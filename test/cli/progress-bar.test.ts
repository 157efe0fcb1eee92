import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/progress-bar.js';

function stream(tty: boolean, columns = 80): { stream: NodeJS.WritableStream; text: () => string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  Object.assign(out, { isTTY: tty, columns });
  return { stream: out, text: () => text };
}

describe('ProgressBar', () => {
  it('writes plain lines without a terminal: one per change, heartbeats throttled', () => {
    let now = 0;
    const { stream: out, text } = stream(false);
    const bar = new ProgressBar(
      { label: 'payout', plainIntervalMs: 10_000 },
      { stream: out, clock: () => now },
    );
    bar.update({ done: 0, detail: 'started' });
    now = 1_000;
    bar.update({ done: 0, detail: 'started' }); // no change, too soon: not printed
    now = 2_000;
    bar.update({ done: 1, total: 4, detail: 'batch b-1' });
    now = 13_000;
    bar.update({ done: 1, total: 4, detail: 'batch b-1' }); // no change but 10 s later: printed
    bar.finish('done');
    bar.update({ done: 9 }); // after finish: ignored
    expect(text().split('\n')).toEqual([
      'payout: 0, started, 0s',
      'payout: 1/4, batch b-1, 2s',
      'payout: 1/4, batch b-1, 13s',
      'payout: 1/4, done, 13s',
      '',
    ]);
    expect(text()).not.toContain('\r');
  });

  it('redraws one line on a terminal, with a bar for a known total', () => {
    let now = 0;
    const { stream: out, text } = stream(true);
    const bar = new ProgressBar({ label: 'payout', widthCells: 10 }, { stream: out, clock: () => now });
    bar.update({ done: 5, total: 10, detail: 'half' });
    now = 50;
    bar.update({ done: 6, total: 10 }); // within the redraw interval: skipped
    now = 200;
    bar.update({ done: 10, total: 10, detail: 'all' });
    bar.finish();
    const frames = text().split('\r').filter(Boolean);
    expect(frames[0]).toBe('payout [#####-----]  50% 5/10  half  0s\u001b[K');
    expect(frames[1]).toBe('payout [##########] 100% 10/10  all  0s\u001b[K');
    expect(frames.at(-1)!.endsWith('\u001b[K\n')).toBe(true);
    expect(text().split('\n')).toHaveLength(2);
  });

  it('shows activity for an unknown total and never wraps the line', () => {
    let now = 0;
    const { stream: out, text } = stream(true, 30);
    const bar = new ProgressBar({ label: 'payout', widthCells: 10 }, { stream: out, clock: () => now });
    bar.update({ done: 0, detail: 'a very long detail that would wrap a narrow terminal' });
    now = 1_000;
    bar.update({ done: 1 });
    const frames = text()
      .split('\r')
      .filter(Boolean)
      .map((f) => f.replace('\u001b[K', ''));
    expect(frames[0]).toMatch(/^payout \[ *={4} *\] 0/);
    expect(frames[0]!.length).toBeLessThan(30);
    expect(frames[0]!.endsWith('…')).toBe(true);
    expect(frames[1]).not.toBe(frames[0]);
    bar.finish('ok');
    expect(text()).toContain('payout [##########] 1  ok  1s');
  });
});
