import { ApiRequestError, poolApi } from './api.js';
import { byId, setText } from './dom.js';
import { formatAtomic } from './format.js';
import { atomicToPlainCoins, coinsToAtomic, signatureToSend, thresholdMessage } from './payout-threshold.js';

/** What to tell the miner for each refusal code of POST /api/miners/:address/threshold. */
const REFUSALS = {
  SIGNATURE_TRUNCATED:
    'Your wallet printed a shortened signature (it does that when the signature holds a zero byte). ' +
    'Run the same sign_message command again and paste the new signature.',
  BAD_SIGNATURE:
    'The signature does not match: sign exactly the message above, in the wallet of this address.',
  MALFORMED_SIGNATURE: 'That is not a signature: paste the line that starts with "Sig".',
  STALE_TIMESTAMP: 'This message is out of date: make a new one.',
  TIMESTAMP_OUT_OF_RANGE: 'This message is out of date: make a new one.',
  TOO_MANY_REQUESTS: 'The pool is busy: try again in a few seconds.',
};

/**
 * The miner page's payout threshold: what payouts wait for, and the two steps to change it (the
 * message to sign with the wallet, then its signature). The pool checks everything again.
 */
export class ThresholdPanel {
  #poolName;
  #onSaved;
  #address = null;
  #view = null;
  #decimals = 7;
  /** The pool's clock minus this page's, from the last miner view (messages carry the pool's time). */
  #clockOffsetMs = 0;
  /** The setting the shown message is for. */
  #pending = null;

  /** `poolName()`: the pool's name from /api/stats (null until known); `onSaved()`: re-read the miner. */
  constructor({ poolName, onSaved }) {
    this.#poolName = poolName;
    this.#onSaved = onSaved;
    byId('threshold-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.#makeMessage();
    });
    byId('threshold-signature-form').addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#send();
    });
  }

  open(address) {
    this.#address = address;
    this.#view = null;
    this.#pending = null;
    for (const id of ['threshold-current', 'threshold-min', 'threshold-max']) setText(id, '—');
    byId('threshold-coins').value = '';
    byId('threshold-signature').value = '';
    byId('threshold-sign').hidden = true;
    this.#result(null);
  }

  /** `view`: the miner view's `payoutThreshold`; `timestampMs`: the pool's clock when it answered. */
  render(view, timestampMs, decimals) {
    this.#view = view;
    this.#decimals = decimals;
    this.#clockOffsetMs = timestampMs - Date.now();
    const coins = (atomic) => `${formatAtomic(atomic, decimals)} XFG`;
    const current = coins(view.thresholdAtomic);
    setText('threshold-current', view.custom ? `${current} (your own)` : `${current} (the pool minimum)`);
    setText('threshold-min', coins(view.minimumAtomic));
    setText('threshold-max', coins(view.maximumAtomic));
  }

  #makeMessage() {
    const view = this.#view;
    const poolName = this.#poolName();
    if (view === null || poolName === null) {
      this.#result('refused', 'The pool has not answered yet: try again in a moment.');
      return;
    }
    const text = byId('threshold-coins').value;
    const atomic = coinsToAtomic(text, this.#decimals);
    const min = BigInt(view.minimumAtomic);
    const max = BigInt(view.maximumAtomic);
    if (atomic === null || atomic < min || atomic > max) {
      const range = `${formatAtomic(view.minimumAtomic, this.#decimals)} to ${formatAtomic(view.maximumAtomic, this.#decimals)}`;
      this.#result('refused', `Enter an amount from ${range} XFG (at most ${this.#decimals} decimals).`);
      return;
    }
    // The pool's time, later than the last accepted message (each one must be).
    const nowSec = Math.floor((Date.now() + this.#clockOffsetMs) / 1000);
    const timestampSec = Math.max(nowSec, (view.lastTimestampSec ?? 0) + 1);
    const message = thresholdMessage(poolName, this.#address, atomic, timestampSec, this.#decimals);
    this.#pending = {
      address: this.#address,
      thresholdCoins: atomicToPlainCoins(atomic, this.#decimals),
      timestampSec,
    };
    setText('threshold-command', `sign_message ${message}`);
    byId('threshold-signature').value = '';
    byId('threshold-sign').hidden = false;
    this.#result(null);
  }

  async #send() {
    const pending = this.#pending;
    if (pending === null || pending.address !== this.#address) return;
    const { signature, cut } = signatureToSend(byId('threshold-signature').value);
    // The field keeps no more than was sent: the rest may be secret.
    byId('threshold-signature').value = signature;
    try {
      const reply = await poolApi.setThreshold(pending.address, {
        thresholdCoins: pending.thresholdCoins,
        timestampSec: pending.timestampSec,
        signature,
      });
      if (pending.address !== this.#address) return;
      this.#pending = null;
      byId('threshold-sign').hidden = true;
      const amount = formatAtomic(reply.payoutThreshold.thresholdAtomic, this.#decimals);
      const note = cut ? ' Only the signature was sent, not the rest of what the wallet printed.' : '';
      this.#result('saved', `Saved: payouts wait for ${amount} XFG.${note}`);
      this.#onSaved();
    } catch (error) {
      if (!(error instanceof ApiRequestError)) throw error;
      this.#result('refused', REFUSALS[error.code] ?? error.message, error.code);
    }
  }

  #result(state, text = '', code = '') {
    const node = byId('threshold-result');
    node.hidden = state === null;
    node.textContent = text;
    node.setAttribute('data-state', state ?? '');
    node.setAttribute('data-code', code);
  }
}
