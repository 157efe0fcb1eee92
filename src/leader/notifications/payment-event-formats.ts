import { formatAtomic } from '../../fuego/money.js';
import type { PoolEventMap } from '../../pool/events.js';
import {
  type Burst,
  type ChatField,
  clip,
  counted,
  explorerLink,
  hashField,
  MAX_LISTED_EVENTS,
  moreField,
  xfg,
} from './chat-message.js';
import { burstSize, type EventFormat, isSingle, lastTimestamp } from './event-format.js';

type Sent = PoolEventMap['payment-sent'];
type Failed = PoolEventMap['payment-failed'];
type UnknownToWallet = PoolEventMap['payout-unknown-to-wallet'];
type Resolved = PoolEventMap['payout-unknown-to-wallet-resolved'];

/** The wallet's refusal, as much as a message can show. */
const MAX_REASON_CHARS = 500;

function miners(count: number): string {
  return counted(count, 'miner', 'miners');
}

/** Sums over the payloads a burst kept: all, or the latest MAX_BURST_EVENTS of a longer one. */
function totals(burst: Burst<{ readonly amountAtomic: bigint; readonly recipients: number }>): {
  amountAtomic: bigint;
  recipients: number;
  label: string;
} {
  return {
    amountAtomic: burst.payloads.reduce((sum, p) => sum + p.amountAtomic, 0n),
    recipients: burst.payloads.reduce((sum, p) => sum + p.recipients, 0),
    label: burst.omitted > 0 ? ` (last ${burst.payloads.length} batches)` : '',
  };
}

function batchFields<P>(burst: Burst<P>, field: (payload: P) => ChatField): ChatField[] {
  return [...burst.payloads.slice(0, MAX_LISTED_EVENTS).map(field), ...moreField(burst, 'batch')];
}

/** The webhook data every event of a batch with a transaction starts with. */
function transactionBatchData(p: Sent | UnknownToWallet | Resolved) {
  return {
    batchId: p.batchId,
    transactionHash: p.transactionHash,
    recipients: p.recipients,
    amountAtomic: p.amountAtomic.toString(),
    amount: formatAtomic(p.amountAtomic),
  };
}

export const PAYMENT_SENT_FORMAT: EventFormat<Sent> = {
  data: (p) => ({
    ...transactionBatchData(p),
    feeAtomic: p.feeAtomic.toString(),
    fee: formatAtomic(p.feeAtomic),
    timestampMs: p.timestampMs,
  }),
  chat: (burst, context) => {
    const transaction = (p: Sent) => explorerLink(context.explorer, 'transaction', p.transactionHash);
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Payment sent',
        headline: `Paid ${xfg(p.amountAtomic)} to ${miners(p.recipients)}`,
        tone: 'good',
        fields: [
          { name: 'Amount', value: xfg(p.amountAtomic), inline: true },
          { name: 'Network fee', value: xfg(p.feeAtomic), inline: true },
          { name: 'Recipients', value: String(p.recipients), inline: true },
          hashField('Transaction', p.transactionHash, transaction(p)),
          { name: 'Batch', value: p.batchId, code: true },
        ],
        ...lastTimestamp(burst),
      };
    }
    const sum = totals(burst);
    const fees = burst.payloads.reduce((total, p) => total + p.feeAtomic, 0n);
    const count = burstSize(burst);
    return {
      title: `${count} payments sent`,
      headline: `${count} payments sent: ${xfg(sum.amountAtomic)} to ${miners(sum.recipients)}${sum.label}`,
      tone: 'good',
      fields: [
        { name: `Total${sum.label}`, value: xfg(sum.amountAtomic), inline: true },
        { name: 'Network fees', value: xfg(fees), inline: true },
        ...batchFields(burst, (p) =>
          hashField(`${xfg(p.amountAtomic)} to ${miners(p.recipients)}`, p.transactionHash, transaction(p)),
        ),
      ],
      ...lastTimestamp(burst),
    };
  },
};

export const PAYMENT_FAILED_FORMAT: EventFormat<Failed> = {
  data: (p) => ({
    batchId: p.batchId,
    recipients: p.recipients,
    amountAtomic: p.amountAtomic.toString(),
    amount: formatAtomic(p.amountAtomic),
    reason: p.reason,
    timestampMs: p.timestampMs,
  }),
  chat: (burst) => {
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Payment failed',
        headline: `Payment of ${xfg(p.amountAtomic)} to ${miners(p.recipients)} failed; balances restored`,
        tone: 'bad',
        fields: [
          { name: 'Amount', value: xfg(p.amountAtomic), inline: true },
          { name: 'Recipients', value: String(p.recipients), inline: true },
          { name: 'Batch', value: p.batchId, code: true },
          { name: 'Reason', value: clip(p.reason, MAX_REASON_CHARS) },
        ],
        ...lastTimestamp(burst),
      };
    }
    const sum = totals(burst);
    const count = burstSize(burst);
    return {
      title: `${count} payments failed`,
      headline: `${count} payments failed: ${xfg(sum.amountAtomic)} to ${miners(sum.recipients)}${sum.label}; balances restored`,
      tone: 'bad',
      fields: batchFields(burst, (p) => ({
        name: `${xfg(p.amountAtomic)} to ${miners(p.recipients)}`,
        value: clip(p.reason, MAX_REASON_CHARS),
      })),
      ...lastTimestamp(burst),
    };
  },
};

/** What the operator is to do about a sent batch the wallet has no record of. */
const RESOLVE_FIELD: ChatField = {
  name: 'Settle',
  value:
    'nothing was refunded: it confirms by itself if the wallet finds it again, otherwise `fuego-pool payout resolve TXHASH --paid` (fuegod has it 10 deep) or `--refund` (fuegod has it nowhere); see `fuego-pool report`',
};

/**
 * A sent batch whose transaction the wallet has no record of (reset, restored from an older
 * backup): its miners were debited and it may be on chain, so it waits for the operator. The
 * transaction is linked: the chain may well hold it.
 */
export const PAYOUT_UNKNOWN_TO_WALLET_FORMAT: EventFormat<UnknownToWallet> = {
  data: (p) => ({
    ...transactionBatchData(p),
    sentAtMs: p.sentAtMs,
    timestampMs: p.timestampMs,
  }),
  chat: (burst, context) => {
    const transaction = (p: UnknownToWallet) =>
      explorerLink(context.explorer, 'transaction', p.transactionHash);
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Payment unknown to the wallet',
        headline: `The wallet has no record of a payment of ${xfg(p.amountAtomic)} to ${miners(p.recipients)}`,
        tone: 'bad',
        fields: [
          { name: 'Amount', value: xfg(p.amountAtomic), inline: true },
          { name: 'Recipients', value: String(p.recipients), inline: true },
          { name: 'Sent', value: new Date(p.sentAtMs).toISOString(), inline: true },
          hashField('Transaction', p.transactionHash, transaction(p)),
          { name: 'Batch', value: p.batchId, code: true },
          RESOLVE_FIELD,
        ],
        ...lastTimestamp(burst),
      };
    }
    const sum = totals(burst);
    const count = burstSize(burst);
    return {
      title: `${count} payments unknown to the wallet`,
      headline: `The wallet has no record of ${count} payments: ${xfg(sum.amountAtomic)} to ${miners(sum.recipients)}${sum.label}`,
      tone: 'bad',
      fields: [
        RESOLVE_FIELD,
        ...batchFields(burst, (p) =>
          hashField(`${xfg(p.amountAtomic)} to ${miners(p.recipients)}`, p.transactionHash, transaction(p)),
        ),
      ],
      ...lastTimestamp(burst),
    };
  },
};

/** How the operator settled it, in a few words. */
function settledAs(p: Resolved): string {
  return p.resolution === 'paid' ? `paid in block ${p.blockHeight}` : 'refunded';
}

/**
 * The operator settled a payment the wallet had no record of: paid (fuegod has it deep in a
 * block) or refunded (fuegod has it nowhere: its miners are credited back).
 */
export const PAYOUT_UNKNOWN_TO_WALLET_RESOLVED_FORMAT: EventFormat<Resolved> = {
  data: (p) => ({
    ...transactionBatchData(p),
    resolution: p.resolution,
    blockHeight: p.blockHeight,
    note: p.note,
    timestampMs: p.timestampMs,
  }),
  chat: (burst, context) => {
    const transaction = (p: Resolved) => explorerLink(context.explorer, 'transaction', p.transactionHash);
    if (isSingle(burst)) {
      const [p] = burst.payloads;
      return {
        title: 'Payment unknown to the wallet settled',
        headline:
          p.resolution === 'paid'
            ? `Settled as paid in block ${p.blockHeight}: ${xfg(p.amountAtomic)} to ${miners(p.recipients)}`
            : `Refunded: ${xfg(p.amountAtomic)} credited back to ${miners(p.recipients)}`,
        tone: p.resolution === 'paid' ? 'good' : 'neutral',
        fields: [
          { name: 'Amount', value: xfg(p.amountAtomic), inline: true },
          { name: 'Recipients', value: String(p.recipients), inline: true },
          { name: 'Settled', value: settledAs(p), inline: true },
          hashField('Transaction', p.transactionHash, transaction(p)),
          { name: 'Batch', value: p.batchId, code: true },
          ...(p.note === '' ? [] : [{ name: 'Note', value: clip(p.note, MAX_REASON_CHARS) }]),
        ],
        ...lastTimestamp(burst),
      };
    }
    const count = burstSize(burst);
    const paid = burst.payloads.filter((p) => p.resolution === 'paid').length;
    return {
      title: `${count} payments unknown to the wallet settled`,
      headline: `${count} payments unknown to the wallet settled: ${paid} paid, ${burst.payloads.length - paid} refunded${totals(burst).label}`,
      tone: 'neutral',
      fields: batchFields(burst, (p) =>
        hashField(
          `${xfg(p.amountAtomic)} to ${miners(p.recipients)}: ${settledAs(p)}`,
          p.transactionHash,
          transaction(p),
        ),
      ),
      ...lastTimestamp(burst),
    };
  },
};
