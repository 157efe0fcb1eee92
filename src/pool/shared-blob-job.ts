import { UPX2_ALGO } from './algo-names.js';
import type { SharedBlobHex, StratumJob } from './stratum-backend.js';

/**
 * A job on a blob shared with other sessions (JobManager.issueShared), as the stratum server gets
 * it. Every session on the blob differs only in its top nonce byte, so the job id and the blob are
 * made from their parts when asked for, not for every miner of a push: the server writes the line
 * from the parts (protocol.ts), and only a line written some other way asks for the strings.
 */
export class SharedBlobStratumJob implements StratumJob {
  readonly algo = UPX2_ALGO;

  constructor(
    readonly sharedBlob: SharedBlobHex,
    readonly nonceTopHex: string,
    readonly jobIdPrefix: string,
    readonly target: string,
    readonly height: number,
  ) {}

  get job_id(): string {
    return this.jobIdPrefix + this.nonceTopHex;
  }

  get blob(): string {
    return this.sharedBlob.head + this.nonceTopHex + this.sharedBlob.tail;
  }
}
