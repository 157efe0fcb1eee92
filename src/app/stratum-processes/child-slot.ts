import type { Worker } from 'node:cluster';
import type { StratumProcessView } from '../../servers/control/control-protocol.js';
import type { ChildStats } from './child-messages.js';

export type ChildState = StratumProcessView['state'];

/** One stratum child of a StratumProcessGroup as the parent tracks it, across its restarts. */
export interface ChildSlot {
  readonly index: number;
  readonly nodeId: number;
  worker: Worker | null;
  state: ChildState;
  stats: ChildStats | null;
  startedAtMs: number;
  restarts: number;
  restartDelayMs: number;
  restartTimer: NodeJS.Timeout | undefined;
  /** The start timeout, armed until the child has booted (its wait for a template has none). */
  bootTimer: NodeJS.Timeout | undefined;
  /** Settled by the child's first `ready` or by its failure, for the group's start. */
  onStarted: ((error?: Error) => void) | undefined;
  exited: Promise<void>;
}

/** The slot of a child not started yet (`stopped`, no numbers). */
export function idleChildSlot(index: number, nodeId: number, restartDelayMs: number): ChildSlot {
  return {
    index,
    nodeId,
    worker: null,
    state: 'stopped',
    stats: null,
    startedAtMs: 0,
    restarts: 0,
    restartDelayMs,
    restartTimer: undefined,
    bootTimer: undefined,
    onStarted: undefined,
    exited: Promise.resolve(),
  };
}
