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
import { burstSize, type ChatContext, type EventFormat, isSingle, lastTimestamp } from './event-format.js';

type Found = PoolEventMap['block-found'];
type Confirmed = PoolEventMap['block-confirmed'];
type Orphaned = PoolEventMap['block-orphaned'];

/** One field per block of a burst (the first MAX_LISTED_EVENTS), then how many are not listed. */
function blockFields<P extends { readonly height: number; readonly hash: string }>(
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

function heightsOf(burst: Burst<{ readonly height: number }>): string {
  return heightList(
    burst.payloads.map((p) => p.height),
    burst.omitted,
  );
}

/** Why a found block is announced late: its submit was refused, the chain showed it later. */
const REFUSED_FIRST_FIELD: ChatField = {
  name: 'Submit',
  value: 'refused by the daemon; found on the chain afterwards',
};

export const BLOCK_FOUND_FORMAT: EventFormat<Found> = {
  data: (p, options) => ({
    height: p.height,
    hash: p.hash,
    solo: p.solo,
    timestampMs: p.timestampMs,
    ...(options.includeAddresses ? { finderAddress: p.finderAddress } : {}),
    // Only when set: receivers written before it see the body they know.
    ...(p.foundAfterRefusal ? { foundAfterRefusal: true } : {}),
  }),
  chat: (burst, context) => {
    const round = (p: Found) => (p.solo ? 'solo' : 'pool');
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Block found',
        headline: `Block ${p.height} found (${round(p)} round)`,
        tone: 'good',
        fields: [
          { name: 'Height', value: String(p.height), inline: true },
          { name: 'Round', value: round(p), inline: true },
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
      fields: blockFields(burst, context, (p) => `Height ${p.height} (${round(p)})`),
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
