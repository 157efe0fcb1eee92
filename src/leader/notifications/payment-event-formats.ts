import { formatAtomic } from '../../fuego/money.js';
import { UNMINED_AFTER_MS } from '../../model/payouts/payout-batch.js';
import type { PoolEventMap } from '../../pool/events.js';
import {
  type Burst,
  type ChatField,
  type ChatMessage,
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
type Unmined = PoolEventMap['payout-unmined'];

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
function transactionBatchData(p: Sent | UnknownToWallet | Resolved | Unmined) {
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
  chat: (burst, context) =>
    stuckBatchChat(burst, context, {
      title: 'Payment unknown to the wallet',
      headline: (p) =>
        `The wallet has no record of a payment of ${xfg(p.amountAtomic)} to ${miners(p.recipients)}`,
      burstTitle: (count) => `${count} payments unknown to the wallet`,
      burstHeadline: (count, amount) => `The wallet has no record of ${count} payments: ${amount}`,
      advice: () => RESOLVE_FIELD,
      burstAdvice: RESOLVE_FIELD,
      label: () => '',
    }),
};

/** How a message about sent batches stuck for the operator (unknown to the wallet, not mined) reads. */
interface StuckBatchWording<P> {
  readonly title: string;
  readonly headline: (p: P) => string;
  readonly burstTitle: (count: number) => string;
  /** `amount`: "X XFG to N miners" and the burst's label. */
  readonly burstHeadline: (count: number, amount: string) => string;
  /** What to do about one (the last field). */
  readonly advice: (p: P) => ChatField;
  /** What to do about several (the first field). */
  readonly burstAdvice: ChatField;
  /** Said after a batch's amount in a burst's list ("" for nothing). */
  readonly label: (p: P) => string;
}

/**
 * The chat message of sent batches that wait for the operator: one with its amount, recipients,
 * send time, transaction (linked), batch and what to do; several as what to do and one line each.
 */
function stuckBatchChat<P extends UnknownToWallet | Unmined>(
  burst: Burst<P>,
  context: Parameters<EventFormat<P>['chat']>[1],
  wording: StuckBatchWording<P>,
): ChatMessage {
  const transaction = (p: P) => explorerLink(context.explorer, 'transaction', p.transactionHash);
  if (isSingle(burst)) {
    const [p] = burst.payloads;
    return {
      title: wording.title,
      headline: wording.headline(p),
      tone: 'bad',
      fields: [
        { name: 'Amount', value: xfg(p.amountAtomic), inline: true },
        { name: 'Recipients', value: String(p.recipients), inline: true },
        { name: 'Sent', value: new Date(p.sentAtMs).toISOString(), inline: true },
        hashField('Transaction', p.transactionHash, transaction(p)),
        { name: 'Batch', value: p.batchId, code: true },
        wording.advice(p),
      ],
      ...lastTimestamp(burst),
    };
  }
  const sum = totals(burst);
  const count = burstSize(burst);
  const amount = `${xfg(sum.amountAtomic)} to ${miners(sum.recipients)}${sum.label}`;
  return {
    title: wording.burstTitle(count),
    headline: wording.burstHeadline(count, amount),
    tone: 'bad',
    fields: [
      wording.burstAdvice,
      ...batchFields(burst, (p) =>
        hashField(
          `${xfg(p.amountAtomic)} to ${miners(p.recipients)}${wording.label(p)}`,
          p.transactionHash,
          transaction(p),
        ),
      ),
    ],
    ...lastTimestamp(burst),
  };
}

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

const HOUR_MS = 3_600_000;

/** Where fuegod has the transaction of a payout not mined, in a few words. */
function sightingText(p: Unmined): string {
  if (p.sighting === 'nowhere') return 'fuegod has it nowhere';
  if (p.sighting === 'in-pool') return "still in fuegod's pool";
  return `fuegod has it in block ${p.blockHeight}, walletd has not seen it`;
}

/** What to do about several payouts not mined (each one's own advice is in its webhook data). */
const UNMINED_BURST_ADVICE: ChatField = {
  name: 'What to do',
  value:
    "one fuegod has nowhere: restart walletd (it then cancels it and the miners are credited back); one still in fuegod's pool may be mined yet; see `fuego-pool report`",
};

/**
 * A sent payout not mined UNMINED_AFTER_MS after its send, with where fuegod has its transaction
 * and what to do (the advice `fuego-pool report` gives). The transaction is linked: fuegod may
 * have it in a block.
 */
export const PAYOUT_UNMINED_FORMAT: EventFormat<Unmined> = {
  data: (p) => ({
    ...transactionBatchData(p),
    sentAtMs: p.sentAtMs,
    ageMs: p.ageMs,
    sighting: p.sighting,
    blockHeight: p.blockHeight,
    advice: p.advice,
    timestampMs: p.timestampMs,
  }),
  chat: (burst, context) =>
    stuckBatchChat(burst, context, {
      title: 'Payment not mined',
      headline: (p) =>
        `A payment of ${xfg(p.amountAtomic)} to ${miners(p.recipients)} is not mined ${Math.floor(p.ageMs / HOUR_MS)} h after its send: ${sightingText(p)}`,
      burstTitle: (count) => `${count} payments not mined`,
      burstHeadline: (count, amount) =>
        `${count} payments not mined ${UNMINED_AFTER_MS / HOUR_MS} h after their send: ${amount}`,
      advice: (p) => ({ name: 'What to do', value: clip(p.advice, MAX_REASON_CHARS) }),
      burstAdvice: UNMINED_BURST_ADVICE,
      label: (p) => `: ${sightingText(p)}`,
    }),
};
