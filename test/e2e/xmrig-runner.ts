import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What an XMRig run reported in its own log. */
export interface XmrigRunReport {
  readonly accepted: number;
  readonly rejected: number;
  readonly rejectReasons: string[];
  readonly jobs: number;
  readonly log: string;
}

export interface XmrigRunOptions {
  readonly xmrigPath: string;
  readonly port: number;
  readonly login: string;
  readonly pass?: string;
  readonly rigId?: string;
  readonly extraArgs?: readonly string[];
}

/**
 * One real XMRig 6.16.0 miner against the pool on 127.0.0.1: one thread, --donate-level=1, always
 * under `timeout`, stopped by the PID we started. XMRig only logs to a file when stdout is not a TTY.
 */
export class XmrigRun {
  readonly #child: ChildProcess;
  readonly #logFile: string;
  readonly #dir: string;

  private constructor(child: ChildProcess, logFile: string, dir: string) {
    this.#child = child;
    this.#logFile = logFile;
    this.#dir = dir;
  }

  static async start(options: XmrigRunOptions): Promise<XmrigRun> {
    const dir = await mkdtemp(join(tmpdir(), 'fuego-xmrig-'));
    const logFile = join(dir, 'xmrig.log');
    const args = [
      '--kill-after=5',
      '300',
      options.xmrigPath,
      '-o',
      `127.0.0.1:${options.port}`,
      '-u',
      options.login,
      '-p',
      options.pass ?? 'x',
      '-a',
      'cn/upx2',
      '-t',
      '1',
      '--donate-level=1',
      '--no-color',
      '--print-time=60',
      `--log-file=${logFile}`,
      ...(options.rigId ? ['--rig-id', options.rigId] : []),
      ...(options.extraArgs ?? []),
    ];
    const child = spawn('timeout', args, { cwd: dir, stdio: 'ignore' });
    return new XmrigRun(child, logFile, dir);
  }

  async report(): Promise<XmrigRunReport> {
    const log = await readFile(this.#logFile, 'utf8').catch(() => '');
    return parseXmrigLog(log);
  }

  /** Polls the log until `done` holds or `timeoutMs` passes; returns the last report either way. */
  async waitFor(done: (report: XmrigRunReport) => boolean, timeoutMs: number): Promise<XmrigRunReport> {
    const started = Date.now();
    for (;;) {
      const report = await this.report();
      if (done(report) || Date.now() - started > timeoutMs || this.#child.exitCode !== null) return report;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async stop(): Promise<XmrigRunReport> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise((resolve) => this.#child.once('exit', resolve));
      this.#child.kill('SIGTERM');
      await exited;
    }
    const report = await this.report();
    await rm(this.#dir, { recursive: true, force: true });
    return report;
  }
}

export function parseXmrigLog(log: string): XmrigRunReport {
  let accepted = 0;
  let rejected = 0;
  const rejectReasons: string[] = [];
  for (const match of log.matchAll(/(accepted|rejected) \((\d+)\/(\d+)\)(.*)$/gm)) {
    accepted = Math.max(accepted, Number(match[2]));
    rejected = Math.max(rejected, Number(match[3]));
    if (match[1] === 'rejected') rejectReasons.push((match[4] ?? '').trim());
  }
  const jobs = (log.match(/new job from/g) ?? []).length;
  return { accepted, rejected, rejectReasons, jobs, log };
}
