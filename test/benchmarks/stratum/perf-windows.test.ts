import { describe, expect, it } from 'vitest';
import { parseWindows } from '../../../benchmarks/stratum/perf-windows.js';

describe("push-profile's --windows", () => {
  it('reads the windows the connections benchmark prints for its counted pushes', () => {
    expect(parseWindows('36040.334-36041.12,36043.3-36044.118')).toEqual([
      [36040.334, 36041.12],
      [36043.3, 36044.118],
    ]);
    expect(parseWindows('12-12')).toEqual([[12, 12]]);
  });

  it('refuses anything else, naming what it was given', () => {
    for (const bad of ['', '5', '7-5', '1-2,', 'a-b', '1-2-3', '-1-2']) {
      expect(() => parseWindows(bad), bad).toThrow(`not "${bad}"`);
    }
  });
});
