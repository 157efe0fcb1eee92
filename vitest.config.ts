import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits 1 s by default: too short for a delivery with retries on a loaded box. A
    // poll that is met returns at once, so only a failing one waits the whole 10 s.
    expect: { poll: { timeout: 10_000 } },
    // Two cores: hashing-heavy suites share the machine with worker threads they start themselves.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
