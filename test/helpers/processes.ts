import { childProcessIds } from '../../src/tools/child-processes.js';

/** Whether a process with this PID exists (signal 0 checks without signalling). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Child processes of this test process (redis-server, XMRig and stratum children alike). */
export function childPids(): number[] {
  return childProcessIds(process.pid);
}
