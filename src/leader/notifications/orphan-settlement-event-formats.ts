import { formatAtomic } from '../../fuego/money.js';
import { UNCREDITED_BACK_ON_CHAIN } from '../../model/blocks/uncredited-back-on-chain.js';
import type { PoolEventMap } from '../../pool/events.js';
import { blockFields, heightsOf, NO_EXPLORER } from './block-event-formats.js';
import { type ChatField, clip, counted, explorerLink, hashField, xfg } from './chat-message.js';
import { burstSize, type EventFormat, isSingle, lastTimestamp } from './event-format.js';

type Settled = PoolEventMap['block-orphan-settled'];
type Restored = PoolEventMap['block-orphan-restored'];
type RestoreUndone = PoolEventMap['block-orphan-restore-undone'];
type BackUncredited = PoolEventMap['block-orphan-back-uncredited'];

/** The operator's note, at most this long in a chat message. */
const MAX_NOTE_CHARS = 500;

/** What a settlement did, in a few words. */
function settledAs(p: Settled): string {
  if (p.settlement === 'absorbed') return `absorbed (${xfg(p.uncollectedAtomic)} the pool's loss)`;
  if (p.settlement === 'credited-back') return `${xfg(p.changeAtomic)} credited back`;
  return `${xfg(p.changeAtomic)} clawed back, ${xfg(p.uncollectedAtomic)} uncollected`;
}

/**
 * The operator settled a block orphaned after credit (absorbed, clawed back) or credited back a
 * clawed-back one a later reorg restored. Its hash is linked only for a credit back: the chain
 * holds the block again then, not otherwise.
 */
export const BLOCK_ORPHAN_SETTLED_FORMAT: EventFormat<Settled> = {
  data: (p) => ({
    height: p.height,
    hash: p.hash,
    settlement: p.settlement,
    accounts: p.accounts,
    changeAtomic: p.changeAtomic.toString(),
    change: formatAtomic(p.changeAtomic),
    uncollectedAtomic: p.uncollectedAtomic.toString(),
    uncollected: formatAtomic(p.uncollectedAtomic),
    note: p.note,
    timestampMs: p.timestampMs,
  }),
  chat: (burst, context) => {
    const link = (p: Settled) =>
      p.settlement === 'credited-back' ? explorerLink(context.explorer, 'block', p.hash) : undefined;
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: p.settlement === 'credited-back' ? 'Orphaned block credited back' : 'Orphaned block settled',
        headline: `Block ${p.height} ${settledAs(p)}: ${counted(p.accounts, 'account', 'accounts')}`,
        tone: 'neutral',
        fields: [
          { name: 'Height', value: String(p.height), inline: true },
          { name: 'Settled', value: p.settlement, inline: true },
          { name: 'Accounts', value: String(p.accounts), inline: true },
          hashField('Hash', p.hash, link(p)),
          ...(p.note === '' ? [] : [{ name: 'Note', value: clip(p.note, MAX_NOTE_CHARS) }]),
        ],
        ...lastTimestamp(burst),
      };
    }
    const count = burstSize(burst);
    return {
      title: `${count} orphaned blocks settled`,
      headline: `${count} orphaned blocks settled: heights ${heightsOf(burst)}`,
      tone: 'neutral',
      fields: blockFields(burst, NO_EXPLORER, (p) => `Height ${p.height}: ${settledAs(p)}`),
      ...lastTimestamp(burst),
    };
  },
};

/** What a restore means for the operator, by what the block was. */
const RESTORED_MEANS: { readonly [K in Restored['outcome']]: string } = {
  unflagged: 'not settled: a credited block again, nothing to do',
  absorbed: 'absorbed: the loss did not happen, nothing to do',
  'clawed-back': 'clawed back: its miners are owed the clawback, fuego-pool block settle HASH --credit-back',
};

/** A restore's webhook data, and its undoing's. */
function restoreData(p: Restored | RestoreUndone): Record<string, unknown> {
  return {
    height: p.height,
    hash: p.hash,
    rewardAtomic: p.rewardAtomic.toString(),
    reward: formatAtomic(p.rewardAtomic),
    outcome: p.outcome,
    timestampMs: p.timestampMs,
  };
}

/** A restore's or its undoing's single message fields: the block, what it means, its hash. */
function restoreFields(p: Restored | RestoreUndone, means: string, link: string | undefined): ChatField[] {
  return [
    { name: 'Height', value: String(p.height), inline: true },
    { name: 'Reward', value: xfg(p.rewardAtomic), inline: true },
    { name: 'Settlement', value: means },
    hashField('Hash', p.hash, link),
  ];
}

/**
 * A block orphaned after credit that a later reorg put back on the main chain (its hash linked:
 * the chain holds it again). A clawed-back one needs the operator (a credit back): tone bad.
 */
export const BLOCK_ORPHAN_RESTORED_FORMAT: EventFormat<Restored> = {
  data: restoreData,
  chat: (burst, context) => {
    const owed = burst.payloads.filter((p) => p.outcome === 'clawed-back').length;
    const tone = owed > 0 ? 'bad' : 'good';
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Orphaned block restored',
        headline: `Block ${p.height} is back on the main chain (a later reorg): ${p.outcome}`,
        tone,
        fields: restoreFields(p, RESTORED_MEANS[p.outcome], explorerLink(context.explorer, 'block', p.hash)),
        ...lastTimestamp(burst),
      };
    }
    const count = burstSize(burst);
    const needing = owed === 0 ? '' : `; ${owed} clawed back, to credit back`;
    return {
      title: `${count} orphaned blocks restored`,
      headline: `${count} orphaned blocks back on the main chain: heights ${heightsOf(burst)}${needing}`,
      tone,
      fields: blockFields(burst, context, (p) => `Height ${p.height}: ${p.outcome}`),
      ...lastTimestamp(burst),
    };
  },
};

/** What a restore undone means for the operator, by what the block was settled as. */
const UNDONE_MEANS: { readonly [K in RestoreUndone['outcome']]: string } = {
  absorbed: 'absorbed: the loss stands again, nothing to do',
  'clawed-back':
    'clawed back: the clawback stands, no credit back is owed any more (--credit-back is refused)',
};

/**
 * A settled block a later reorg had restored, replaced again before any credit back: what
 * `block-orphan-restored` asked for is withdrawn. Its hash is not linked (the chain no longer holds
 * it). Tone bad when an absorbed loss stands again, neutral otherwise (nothing left to do).
 */
export const BLOCK_ORPHAN_RESTORE_UNDONE_FORMAT: EventFormat<RestoreUndone> = {
  data: restoreData,
  chat: (burst) => {
    const tone = burst.payloads.some((p) => p.outcome === 'absorbed') ? 'bad' : 'neutral';
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Orphaned block restore undone',
        headline: `Block ${p.height} is off the main chain again (yet another reorg): ${p.outcome}`,
        tone,
        fields: restoreFields(p, UNDONE_MEANS[p.outcome], undefined),
        ...lastTimestamp(burst),
      };
    }
    const count = burstSize(burst);
    const clawed = burst.payloads.filter((p) => p.outcome === 'clawed-back').length;
    const withdrawn = clawed === 0 ? '' : `; ${clawed} clawed back, no credit back owed any more`;
    return {
      title: `${count} orphaned block restores undone`,
      headline: `${count} restored orphaned blocks off the main chain again: heights ${heightsOf(burst)}${withdrawn}`,
      tone,
      fields: blockFields(burst, NO_EXPLORER, (p) => `Height ${p.height}: ${p.outcome}`),
      ...lastTimestamp(burst),
    };
  },
};

/**
 * An orphaned block a deeper reorg put back on the main chain that the ledger does not credit: its
 * reward is in the wallet, owed to nobody by the ledger. Why, and what to do (see
 * UNCREDITED_BACK_ON_CHAIN); its hash linked (the chain holds it). Tone bad when miners are owed
 * its reward (no window kept), neutral when it is pool surplus (a PROP round merged).
 */
export const BLOCK_ORPHAN_BACK_UNCREDITED_FORMAT: EventFormat<BackUncredited> = {
  data: (p) => ({
    height: p.height,
    hash: p.hash,
    rewardAtomic: p.rewardAtomic.toString(),
    reward: formatAtomic(p.rewardAtomic),
    reason: p.reason,
    advice: UNCREDITED_BACK_ON_CHAIN[p.reason].advice,
    timestampMs: p.timestampMs,
  }),
  chat: (burst, context) => {
    const tone = burst.payloads.some((p) => p.reason === 'no-window') ? 'bad' : 'neutral';
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      const { why, advice } = UNCREDITED_BACK_ON_CHAIN[p.reason];
      return {
        title: 'Orphaned block back on chain, not credited',
        headline: `Block ${p.height} is back on the main chain (a deeper reorg): ${xfg(p.rewardAtomic)} in the wallet, credited to nobody`,
        tone,
        fields: [
          { name: 'Height', value: String(p.height), inline: true },
          { name: 'Reward', value: xfg(p.rewardAtomic), inline: true },
          { name: 'Why', value: why },
          { name: 'What to do', value: advice },
          hashField('Hash', p.hash, explorerLink(context.explorer, 'block', p.hash)),
        ],
        ...lastTimestamp(burst),
      };
    }
    const count = burstSize(burst);
    const total = burst.payloads.reduce((sum, p) => sum + p.rewardAtomic, 0n);
    const atLeast = burst.omitted > 0 ? 'at least ' : '';
    return {
      title: `${count} orphaned blocks back on chain, not credited`,
      headline: `${count} orphaned blocks back on the main chain, not credited: heights ${heightsOf(burst)}; ${atLeast}${xfg(total)} in the wallet (see fuego-pool report)`,
      tone,
      fields: blockFields(
        burst,
        context,
        (p) => `Height ${p.height}: ${UNCREDITED_BACK_ON_CHAIN[p.reason].why}`,
      ),
      ...lastTimestamp(burst),
    };
  },
};
