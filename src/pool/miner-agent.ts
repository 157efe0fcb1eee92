/** What a miner's user agent (the login's `agent`) tells the pool about how it mines. */

/** xmrig-proxy, xmr-node-proxy or a NiceHash rig: many miners behind one blob, any 32-bit nonce. */
export function agentIsProxy(agent: string): boolean {
  return /proxy|nicehash/i.test(agent);
}

/** XMRig 6 or later keeps a non-zero top nonce byte it finds in the blob ("auto nicehash", §6.4). */
const XMRIG_AGENT = /^XMRig\/(\d+)\./i;
const MIN_XMRIG_MAJOR = 6;

/** Whether a miner with this user agent keeps the top nonce byte the pool writes into its blob. */
export function agentKeepsNonceTopByte(agent: string): boolean {
  const major = XMRIG_AGENT.exec(agent)?.[1];
  return major !== undefined && Number(major) >= MIN_XMRIG_MAJOR;
}
