import { processTree, readProcessCpuSplit, readRssKb, readRssPartsKb } from './measure-process.js';

/** What the pool uses over all its processes (the pool process and its stratum children), from /proc. */

export interface CpuSplit {
  readonly userSeconds: number;
  readonly systemSeconds: number;
}

/** CPU seconds of the pool process and its stratum children, every thread, user and kernel. */
export function poolCpu(pid: number): CpuSplit {
  let userSeconds = 0;
  let systemSeconds = 0;
  for (const member of processTree(pid)) {
    const cpu = readProcessCpuSplit(member);
    userSeconds += cpu.userSeconds;
    systemSeconds += cpu.systemSeconds;
  }
  return { userSeconds, systemSeconds };
}

export function poolCpuSeconds(pid: number): number {
  const cpu = poolCpu(pid);
  return cpu.userSeconds + cpu.systemSeconds;
}

export interface PoolMemory {
  /** VmRSS summed over the pool's processes (as the target counts it). */
  readonly rssBytes: number;
  /**
   * The same with file-backed pages counted once, not once per process: they are mostly the node
   * binary, which every process maps and the kernel holds once.
   */
  readonly rssSharedOnceBytes: number;
}

export function poolMemory(pid: number): PoolMemory {
  let rssKb = 0;
  let privateKb = 0;
  let fileKb = 0;
  for (const member of processTree(pid)) {
    rssKb += readRssKb(member);
    const parts = readRssPartsKb(member);
    privateKb += parts.anonKb + parts.shmemKb;
    fileKb = Math.max(fileKb, parts.fileKb);
  }
  return { rssBytes: rssKb * 1024, rssSharedOnceBytes: (privateKb + fileKb) * 1024 };
}
