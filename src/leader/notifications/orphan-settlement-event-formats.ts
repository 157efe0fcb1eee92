import { formatAtomic } from '../../fuego/money.js';
import type { PoolEventMap } from '../../pool/events.js';
import { blockFields, heightsOf, NO_EXPLORER } from './block-event-formats.js';
import { type ChatField, clip, counted, explorerLink, hashField, xfg } from './chat-message.js';
import { burstSize, type EventFormat, isSingle, lastTimestamp } from './event-format.js';

type Settled = PoolEventMap['block-orphan-settled'];
type Restored = PoolEventMap['block-orphan-restored'];

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

function restoredField(p: Restored): ChatField {
  return { name: 'Settlement', value: RESTORED_MEANS[p.outcome] };
}

/**
 * A block orphaned after credit that a later reorg put back on the main chain (its hash linked:
 * the chain holds it again). A clawed-back one needs the operator (a credit back): tone bad.
 */
export const BLOCK_ORPHAN_RESTORED_FORMAT: EventFormat<Restored> = {
  data: (p) => ({
    height: p.height,
    hash: p.hash,
    rewardAtomic: p.rewardAtomic.toString(),
    reward: formatAtomic(p.rewardAtomic),
    outcome: p.outcome,
    timestampMs: p.timestampMs,
  }),
  chat: (burst, context) => {
    const owed = burst.payloads.filter((p) => p.outcome === 'clawed-back').length;
    const tone = owed > 0 ? 'bad' : 'good';
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Orphaned block restored',
        headline: `Block ${p.height} is back on the main chain (a later reorg): ${p.outcome}`,
        tone,
        fields: [
          { name: 'Height', value: String(p.height), inline: true },
          { name: 'Reward', value: xfg(p.rewardAtomic), inline: true },
          restoredField(p),
          hashField('Hash', p.hash, explorerLink(context.explorer, 'block', p.hash)),
        ],
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
