const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** ws(s)://<this page's host and path>/api/live */
export function liveFeedUrl(pageUrl) {
  const url = new URL('api/live', pageUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.hash = '';
  url.search = '';
  return url.href;
}

/**
 * The pool's WebSocket feed: `{type, data, timestampMs}` messages to `onMessage`, connection state
 * ('connecting' | 'live' | 'offline') to `onStatus`. Reconnects with a doubling delay (1 s .. 30 s)
 * and re-sends the followed addresses after every reconnect.
 */
export class LiveFeedClient {
  #url;
  #onMessage;
  #onStatus;
  #socket = null;
  #retryMs = FIRST_RETRY_MS;
  #followed = new Set();

  constructor(url, { onMessage, onStatus }) {
    this.#url = url;
    this.#onMessage = onMessage;
    this.#onStatus = onStatus;
  }

  connect() {
    this.#onStatus('connecting');
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    socket.addEventListener('open', () => {
      this.#retryMs = FIRST_RETRY_MS;
      this.#onStatus('live');
      for (const address of this.#followed) this.#send({ op: 'subscribe', address });
    });
    socket.addEventListener('message', (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message !== null && typeof message.type === 'string') this.#onMessage(message);
    });
    socket.addEventListener('close', () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#onStatus('offline');
      setTimeout(() => this.connect(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS);
    });
  }

  get live() {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** Per-tick `miner-hashrate` messages for `address` (kept across reconnects). */
  follow(address) {
    if (this.#followed.has(address)) return;
    this.#followed.add(address);
    this.#send({ op: 'subscribe', address });
  }

  unfollow(address) {
    if (!this.#followed.delete(address)) return;
    this.#send({ op: 'unsubscribe', address });
  }

  #send(message) {
    if (this.live) this.#socket.send(JSON.stringify(message));
  }
}
