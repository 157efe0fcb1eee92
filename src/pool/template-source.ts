import type { BlockTemplate } from '../fuego/block-template.js';

/** A block template the pool is mining on, as handed to the job manager. */
export interface ActiveTemplate {
  /** Increases by one for every template this process serves; job ids refer to it. */
  readonly id: number;
  readonly template: BlockTemplate;
  /** Height of the block being mined (from getblocktemplate). */
  readonly height: number;
  /** Network difficulty a share must meet to be a block. */
  readonly networkDifficulty: bigint;
  /** Id (hex) of the block this template builds on. */
  readonly prevHash: string;
  readonly receivedAtMs: number;
}

export type TemplateChange =
  /** The chain tip moved: jobs on older templates are stale. */
  | 'new-block'
  /** Same height, new transactions: older jobs stay valid for shares, new jobs go out. */
  | 'refresh';

/** Where templates come from: the daemon (leader) or, on a stratum-only node, Redis pub/sub. */
export interface TemplateSource {
  current(): ActiveTemplate | undefined;
  /** Subscribes; returns the unsubscribe function. */
  onTemplate(listener: (template: ActiveTemplate, change: TemplateChange) => void): () => void;
}
