import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The backlog of the listening TCP socket on `port` as `ss` reports it (its Send-Q column), undefined
 * when nothing listens there, or 'no ss' where the tool is missing (not Linux, say).
 */
export function listenBacklogOf(port: number): number | 'no ss' | undefined {
  let out: string;
  try {
    out = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' });
  } catch {
    return 'no ss';
  }
  const fields = out.trim().split(/\s+/);
  return fields[0] === 'LISTEN' ? Number(fields[2]) : undefined;
}

/** Linux's cap on any listen backlog (net.core.somaxconn). */
export function somaxconn(): number {
  return Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());
}
