import type { Redis } from 'ioredis';

/** What the crashed process "throws": it stops there, and nothing after it reaches Redis. */
export class SoakCrash extends Error {
  constructor(where: string) {
    super(`crashed ${where}`);
    this.name = 'SoakCrash';
  }
}

/** Calls that send nothing to Redis (set-up and events): never counted, never refused. */
const LOCAL_CALLS = new Set<PropertyKey>([
  'defineCommand',
  'on',
  'once',
  'off',
  'removeListener',
  'listeners',
]);

/**
 * A connection of a process that crashes: the shared client behind a proxy that lets `budget`
 * calls through, then none (each later call throws SoakCrash, as if the process had stopped
 * before sending it). A call already sent is done by Redis whatever follows, as with a real crash;
 * every money write is one script, so a crash falls between two of them. `crash()` stops it at
 * once (at a named fault point).
 */
export class CrashingRedis {
  #budget: number;
  #calls = 0;
  readonly connection: Redis;

  constructor(redis: Redis, budget = Number.POSITIVE_INFINITY) {
    this.#budget = budget;
    this.connection = new Proxy(redis, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function' || LOCAL_CALLS.has(property)) {
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return (...args: unknown[]) => {
          // Thrown, not a rejected promise: a pipeline's chained calls would leave that unhandled.
          if (this.#calls >= this.#budget) throw new SoakCrash(`before Redis call ${String(property)}`);
          this.#calls++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  /** Redis calls made before the crash (or so far). */
  get calls(): number {
    return this.#calls;
  }

  get crashed(): boolean {
    return this.#calls >= this.#budget;
  }

  /** The process stops here: no later call reaches Redis. */
  crash(): void {
    this.#budget = this.#calls;
  }
}
