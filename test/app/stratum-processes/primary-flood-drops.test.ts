import { channel } from 'node:diagnostics_channel';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sumChildStats } from '../../../src/app/stratum-processes/child-stats-sum.js';
import { PrimaryFloodDrops } from '../../../src/app/stratum-processes/primary-flood-drops.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { FilteredListener, ListenerFilter } from '../../../src/servers/flood-drop/listener-filter.js';
import { captureLogs } from '../../helpers/log-capture.js';

/** Two refusals at once, then a drop (one earned back a second). */
const config = parseConfig({
  stratum: { processes: 2 },
  floodDrop: { refusals: 2, refusalsPerSec: 1, dropSeconds: 60, maxDropSeconds: 60 },
});

/** Records the descriptor each program goes on (as the listener reads it at attach). */
class DescriptorFilter implements ListenerFilter {
  readonly attachedFds: number[] = [];
  attach(listener: FilteredListener, _program: Uint32Array): boolean {
    const fd = 'fd' in listener && typeof listener.fd === 'function' ? listener.fd() : undefined;
    if (fd === undefined) return false;
    this.attachedFds.push(fd);
    return true;
  }
  detach(): void {}
}

const servers: Server[] = [];
const started: PrimaryFloodDrops[] = [];

afterEach(async () => {
  for (const drops of started.splice(0)) drops.close();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listening(): Promise<{ server: Server; port: number; fd: number }> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return { server, port: (server.address() as AddressInfo).port, fd };
}

function start(filter: ListenerFilter = new DescriptorFilter()) {
  const log = captureLogs('info');
  const drops = PrimaryFloodDrops.start(config, log.logger, filter);
  if (drops === undefined) throw new Error('drops are on in this config');
  started.push(drops);
  return { drops, log };
}

const served = (port: number) => [{ configuredPort: 0, port, host: '127.0.0.1', tls: false }];

describe('the kernel drops of the pool process for its stratum children', () => {
  it('drops on the socket this process listens on for a served port, and on no other', async () => {
    const filter = new DescriptorFilter();
    const { drops } = start(filter);
    const stratum = await listening(); // as Node cluster's round-robin handle listens, at the first child's listen
    const api = await listening();
    drops.childServing(served(stratum.port));
    drops.noteAdmission('127.0.0.9', 'admit');
    drops.noteAdmission('127.0.0.9', 'max-connections');
    drops.noteAdmission('127.0.0.9', 'per-ip-limit');
    drops.noteAdmission('127.0.0.9', 'per-network-limit');
    expect(filter.attachedFds).toEqual([]); // its two refusals at once
    drops.noteAdmission('127.0.0.9', 'per-ip-limit');
    expect(filter.attachedFds).toEqual([stratum.fd]);
    expect(filter.attachedFds).not.toContain(api.fd);
    // The gauge: the children drop none, this process one peer.
    expect(drops.withDropped(sumChildStats([])).stratum.connections.floodDropped).toBe(1);
  });

  it("drops a peer past its budget in the children's reports", async () => {
    const filter = new DescriptorFilter();
    const { drops } = start(filter);
    const stratum = await listening();
    drops.childServing(served(stratum.port));
    drops.noteReport({
      kind: 'refusals',
      peers: [
        ['127.0.0.9', 2],
        ['127.0.0.10', 1],
      ],
    });
    expect(filter.attachedFds).toEqual([]);
    drops.noteReport({ kind: 'refusals', peers: [['127.0.0.9', 500]] });
    expect(filter.attachedFds).toEqual([stratum.fd]);
    expect(drops.withDropped(sumChildStats([])).stratum.connections.floodDropped).toBe(1);
  });

  it('puts the drops in force on a socket listening again for a child started after all had gone', async () => {
    const filter = new DescriptorFilter();
    const { drops } = start(filter);
    const first = await listening();
    drops.childServing(served(first.port));
    drops.noteReport({ kind: 'refusals', peers: [['127.0.0.9', 3]] });
    expect(filter.attachedFds).toEqual([first.fd]);
    // Node cluster closes the round-robin handle with the last child, and listens anew for the next.
    await new Promise((resolve) => servers.shift()!.close(resolve));
    const again = await listening();
    drops.childServing(served(again.port));
    expect(filter.attachedFds).toEqual([first.fd, again.fd]);
  });

  it('says once that the drops are off when this process holds no socket of the served ports', async () => {
    const { drops, log } = start();
    const elsewhere = await listening();
    drops.childServing(served(elsewhere.port + 1));
    drops.childServing(served(elsewhere.port + 1));
    const off = log.records.filter(
      (record) => record['msg'] === 'kernel drops of flooding peers are off; they are refused in Node',
    );
    expect(off).toHaveLength(1);
    expect(off[0]).toMatchObject({ server: 'stratum', reason: expect.stringContaining('was not found') });
  });

  it('records no socket once closed: a listen after close() is not seen', async () => {
    const filter = new DescriptorFilter();
    const { drops, log } = start(filter);
    drops.close();
    const later = await listening();
    drops.childServing(served(later.port));
    expect(log.records.some((record) => String(record['reason']).includes('was not found'))).toBe(true);
  });

  it('takes what else comes on the listen channel for no socket, without throwing inside a listen', async () => {
    const filter = new DescriptorFilter();
    const { drops } = start(filter);
    const listen = channel('tracing:net.server.listen:asyncEnd');
    for (const odd of [null, 'x', {}, { server: {} }, { server: { _handle: { fd: 7 } } }])
      listen.publish(odd);
    const stratum = await listening();
    drops.childServing(served(stratum.port));
    drops.noteReport({ kind: 'refusals', peers: [['127.0.0.9', 3]] });
    expect(filter.attachedFds).toEqual([stratum.fd]);
  });

  it('is off with floodDrop.refusals 0, or without the filter', () => {
    const off = parseConfig({ stratum: { processes: 2 }, floodDrop: { refusals: 0 } });
    expect(PrimaryFloodDrops.start(off, captureLogs().logger, new DescriptorFilter())).toBeUndefined();
    const log = captureLogs('info');
    expect(PrimaryFloodDrops.start(config, log.logger, { unavailable: 'no addon here' })).toBeUndefined();
    expect(log.records).toMatchObject([{ server: 'stratum', reason: 'no addon here' }]);
  });
});
