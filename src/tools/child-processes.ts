import { readdirSync, readFileSync } from 'node:fs';

/**
 * The direct child processes of `pid`, from /proc (Linux only), for tests and benchmarks that
 * must account for or clean up after the processes a pool starts (its stratum children, say).
 */
export function childProcessIds(pid: number): number[] {
  const children: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue; // the thread exited between readdir and read
    }
    for (const child of text.split(' ')) if (child.trim() !== '') children.push(Number(child));
  }
  return children;
}
