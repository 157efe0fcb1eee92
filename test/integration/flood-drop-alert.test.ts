import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const ALERTS = join(ROOT, 'deploy', 'prometheus', 'alerts.yml');
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'fuego-pool.json');

/*
 * A `promtool test rules` file for FuegoPoolFloodDropping: the stratum port of one pool process
 * drops 2 peers for 10 minutes on end; the API port drops 1 peer for 3 minutes only (a flood
 * that stops: no alert). Series are one sample a minute.
 */
const RULE_TESTS = `rule_files:
  - ${JSON.stringify(ALERTS)}
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'fuego_pool_flood_dropped_peers{server="stratum",instance="pool-a:8117"}'
        values: '0 2x10'
      - series: 'fuego_pool_flood_dropped_peers{server="api",instance="pool-a:8117"}'
        values: '0 1x2 0x8'
    alert_rule_test:
      - eval_time: 4m
        alertname: FuegoPoolFloodDropping
        exp_alerts: []
      - eval_time: 8m
        alertname: FuegoPoolFloodDropping
        exp_alerts:
          - exp_labels:
              severity: warning
              server: stratum
            exp_annotations:
              summary: 2 peers flooding the stratum port have their connections dropped by the kernel
              description: ${JSON.stringify(floodDescription('stratum'))}
`;

/** The rule's description for `server`, read from alerts.yml (the test checks it is templated). */
function floodDescription(server: string): string {
  const rule = readFileSync(ALERTS, 'utf8').split('- alert: FuegoPoolFloodDropping')[1] ?? '';
  const description = /^\s*description: (".*")$/m.exec(rule)?.[1];
  if (description === undefined) throw new Error('FuegoPoolFloodDropping has no description');
  return (JSON.parse(description) as string).replaceAll('{{ $labels.server }}', server);
}

describe('alert FuegoPoolFloodDropping (kernel flood drops)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuego-flood-alert-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fires for a port whose peers are dropped for 5 minutes, not for a flood that stops sooner', () => {
    const file = join(dir, 'flood-drop.test.yml');
    writeFileSync(file, RULE_TESTS);
    const run = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
    if (run.error !== undefined) {
      throw new Error(
        'promtool not found: install the Debian/Ubuntu package `prometheus` (scripts/ensure-prereqs.sh)',
      );
    }
    expect(`${run.stdout}${run.stderr}`).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('tells the operator what to check: the log, the firewall, the exempt addresses', () => {
    const description = floodDescription('stratum');
    expect(description).toContain('peer keeps connecting while refused'); // the pool's log line
    expect(description).toContain('stratum.bans.exemptIps');
    expect(description).toContain('api.rateLimit.exemptIps');
    expect(description).toContain('floodDrop.refusals');
  });

  it('has a dashboard panel of the peers dropped by server', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: { id: number; title: string; targets: { expr: string }[] }[];
    };
    const panel = dashboard.panels.find((p) =>
      p.targets.some((t) => t.expr.includes('fuego_pool_flood_dropped_peers')),
    );
    expect(panel?.title).toBe('Kernel flood drops');
    expect(panel?.targets[0]?.expr).toBe('sum by (server) (fuego_pool_flood_dropped_peers)');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
