import { readdirSync, readFileSync } from 'node:fs';

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
  const pids: number[] = [];
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8');
      for (const pid of text.split(' ')) if (pid.trim() !== '') pids.push(Number(pid));
    } catch {
      // the thread ended meanwhile
    }
  }
  return pids;
}
