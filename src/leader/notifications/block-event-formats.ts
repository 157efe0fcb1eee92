import { formatAtomic } from '../../fuego/money.js';
import type { PoolEventMap } from '../../pool/events.js';
import {
  type Burst,
  type ChatField,
  counted,
  explorerLink,
  hashField,
  heightList,
  MAX_LISTED_EVENTS,
  moreField,
  xfg,
} from './chat-message.js';
import {
  burstSize,
  type ChatContext,
  type EventFormat,
  isSingle,
  lastTimestamp,
  type WebhookPayloadOptions,
} from './event-format.js';

type Found = PoolEventMap['block-found'];
type Refused = PoolEventMap['block-refused'];
type Confirmed = PoolEventMap['block-confirmed'];
type Orphaned = PoolEventMap['block-orphaned'];
type OrphanedAfterCredit = PoolEventMap['block-orphaned-after-credit'];

/** A chat context without explorer links. */
export const NO_EXPLORER: ChatContext = {};

/**
 * One field per block of a burst (the first MAX_LISTED_EVENTS), its hash linked to the explorer
 * when `context` has one, then how many are not listed.
 */
export function blockFields<P extends { readonly height: number; readonly hash: string }>(
  burst: Burst<P>,
  context: ChatContext,
  label: (payload: P) => string = (p) => `Height ${p.height}`,
): ChatField[] {
  return [
    ...burst.payloads
      .slice(0, MAX_LISTED_EVENTS)
      .map((p) => hashField(label(p), p.hash, explorerLink(context.explorer, 'block', p.hash))),
    ...moreField(burst, 'block'),
  ];
}

export function heightsOf(burst: Burst<{ readonly height: number }>): string {
  return heightList(
    burst.payloads.map((p) => p.height),
    burst.omitted,
  );
}

/** The facts of a block the pool submitted (found or refused) that webhook data carries. */
function submittedBlockData(p: Found | Refused, options: WebhookPayloadOptions): Record<string, unknown> {
  return {
    height: p.height,
    hash: p.hash,
    solo: p.solo,
    timestampMs: p.timestampMs,
    ...(options.includeAddresses ? { finderAddress: p.finderAddress } : {}),
  };
}

function roundOf(p: { readonly solo: boolean }): string {
  return p.solo ? 'solo' : 'pool';
}

/** A submitted block's height and round, side by side. */
function heightAndRoundFields(p: Found | Refused): ChatField[] {
  return [
    { name: 'Height', value: String(p.height), inline: true },
    { name: 'Round', value: roundOf(p), inline: true },
  ];
}

/** Why a found block is announced late: its submit was refused, the chain showed it later. */
const REFUSED_FIRST_FIELD: ChatField = {
  name: 'Submit',
  value: 'refused by the daemon; found on the chain afterwards',
};

export const BLOCK_FOUND_FORMAT: EventFormat<Found> = {
  data: (p, options) => ({
    ...submittedBlockData(p, options),
    // Only when set: receivers written before it see the body they know.
    ...(p.foundAfterRefusal ? { foundAfterRefusal: true } : {}),
  }),
  chat: (burst, context) => {
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Block found',
        headline: `Block ${p.height} found (${roundOf(p)} round)`,
        tone: 'good',
        fields: [
          ...heightAndRoundFields(p),
          ...(p.foundAfterRefusal ? [REFUSED_FIRST_FIELD] : []),
          hashField('Hash', p.hash, explorerLink(context.explorer, 'block', p.hash)),
        ],
        ...lastTimestamp(burst),
      };
    }
    const count = burstSize(burst);
    return {
      title: `${count} blocks found`,
      headline: `${count} blocks found: heights ${heightsOf(burst)}`,
      tone: 'good',
      fields: blockFields(burst, context, (p) => `Height ${p.height} (${roundOf(p)})`),
      ...lastTimestamp(burst),
    };
  },
};

/** Each reason's likely cause once, over the burst's kept events, in order of first seen. */
function likelyCauseFields(burst: Burst<Refused>): ChatField[] {
  const byReason = new Map<Refused['reason'], Refused>();
  for (const p of burst.payloads) if (!byReason.has(p.reason)) byReason.set(p.reason, p);
  return [...byReason.values()].map((p) => ({ name: `Likely cause (${p.reason})`, value: p.likelyCause }));
}

/**
 * A block the daemon refused: what the stratum side's diagnosis found (the reason) and what it
 * most likely means for the operator (the likely cause: a stale tip, or a fuegod whose cn/upx2
 * disagrees, to be rebuilt). Its hash is not linked to the explorer: the chain does not hold the
 * block (if it does after all, block-found follows, linked).
 */
export const BLOCK_REFUSED_FORMAT: EventFormat<Refused> = {
  data: (p, options) => ({
    ...submittedBlockData(p, options),
    reason: p.reason,
    likelyCause: p.likelyCause,
  }),
  chat: (burst) => {
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Block refused by the daemon',
        headline: `Block ${p.height} refused by the daemon (${p.reason})`,
        tone: 'bad',
        fields: [
          ...heightAndRoundFields(p),
          { name: 'Reason', value: p.reason, inline: true },
          { name: 'Likely cause', value: p.likelyCause },
          hashField('Hash', p.hash, undefined),
        ],
        ...lastTimestamp(burst),
      };
    }
    const count = burstSize(burst);
    const reasons = new Set(burst.payloads.map((p) => p.reason));
    const [onlyReason] = reasons;
    const why = reasons.size === 1 && burst.omitted === 0 ? ` (${onlyReason})` : '';
    return {
      title: `${count} blocks refused by the daemon`,
      headline: `${count} blocks refused by the daemon${why}: heights ${heightsOf(burst)}`,
      tone: 'bad',
      fields: [
        ...likelyCauseFields(burst),
        ...blockFields(burst, NO_EXPLORER, (p) => `Height ${p.height} (${roundOf(p)}, ${p.reason})`),
      ],
      ...lastTimestamp(burst),
    };
  },
};

export const BLOCK_CONFIRMED_FORMAT: EventFormat<Confirmed> = {
  data: (p) => ({
    height: p.height,
    hash: p.hash,
    rewardAtomic: p.rewardAtomic.toString(),
    reward: formatAtomic(p.rewardAtomic),
  }),
  chat: (burst, context) => {
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Block confirmed',
        headline: `Block ${p.height} confirmed: reward ${xfg(p.rewardAtomic)}`,
        tone: 'good',
        fields: [
          { name: 'Height', value: String(p.height), inline: true },
          { name: 'Reward', value: xfg(p.rewardAtomic), inline: true },
          hashField('Hash', p.hash, explorerLink(context.explorer, 'block', p.hash)),
        ],
      };
    }
    const count = burstSize(burst);
    const total = burst.payloads.reduce((sum, p) => sum + p.rewardAtomic, 0n);
    const totalName = burst.omitted > 0 ? `Rewards of the last ${burst.payloads.length}` : 'Rewards';
    return {
      title: `${count} blocks confirmed`,
      headline: `${count} blocks confirmed: heights ${heightsOf(burst)}`,
      tone: 'good',
      fields: [
        { name: totalName, value: xfg(total) },
        ...blockFields(burst, context, (p) => `Height ${p.height}: ${xfg(p.rewardAtomic)}`),
      ],
    };
  },
};

export const BLOCK_ORPHANED_FORMAT: EventFormat<Orphaned> = {
  data: (p) => ({ height: p.height, hash: p.hash }),
  chat: (burst, context) => {
    const count = burstSize(burst);
    const what = counted(count, 'block', 'blocks');
    return {
      title: isSingle(burst) ? 'Block orphaned' : `${what} orphaned`,
      headline: isSingle(burst)
        ? `Block ${burst.payloads[0].height} orphaned: another block took its height`
        : `${what} orphaned: heights ${heightsOf(burst)}`,
      tone: 'bad',
      fields: blockFields(burst, context),
    };
  },
};

/** What the operator is to do about a credited block a deep reorg took away. */
const SETTLE_FIELD: ChatField = {
  name: 'Credits',
  value: "still in the miners' balances: nothing was debited; see fuego-pool report",
};

/**
 * A block the pool had credited that a reorg deeper than confirmDepth replaced: money the pool
 * may have paid out without the reward behind it. Its hash is not linked: the chain no longer
 * holds it.
 */
export const BLOCK_ORPHANED_AFTER_CREDIT_FORMAT: EventFormat<OrphanedAfterCredit> = {
  data: (p) => ({
    height: p.height,
    hash: p.hash,
    rewardAtomic: p.rewardAtomic.toString(),
    reward: formatAtomic(p.rewardAtomic),
  }),
  chat: (burst) => {
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Credited block orphaned',
        headline: `Block ${p.height} orphaned after its reward ${xfg(p.rewardAtomic)} was credited`,
        tone: 'bad',
        fields: [
          { name: 'Height', value: String(p.height), inline: true },
          { name: 'Reward', value: xfg(p.rewardAtomic), inline: true },
          SETTLE_FIELD,
          hashField('Hash', p.hash, undefined),
        ],
      };
    }
    const count = burstSize(burst);
    return {
      title: `${count} credited blocks orphaned`,
      headline: `${count} credited blocks orphaned: heights ${heightsOf(burst)}`,
      tone: 'bad',
      fields: [
        SETTLE_FIELD,
        ...blockFields(burst, NO_EXPLORER, (p) => `Height ${p.height}: ${xfg(p.rewardAtomic)}`),
      ],
    };
  },
};
