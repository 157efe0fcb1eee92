import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * No Docker engine runs here, so the image is checked without one: the Dockerfile's stages and
 * switches, and a rehearsal of its runtime stage (its COPY list assembled from this worktree's
 * build) that must load the native addon.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const stages = dockerfile.split(/^FROM /m).slice(1);

describe('container image (Dockerfile, docker-compose.yml)', () => {
  const scratch: string[] = [];
  afterAll(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  it('builds in node:20-bookworm with the native addon mandatory and the install flags of ensure-prereqs.sh', () => {
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatch(/^node:20-bookworm AS build\n/);
    const prereqs = readFileSync(join(ROOT, 'scripts', 'ensure-prereqs.sh'), 'utf8');
    const install = /^\s*(npm install [^\n]+)$/m.exec(prereqs)?.[1];
    expect(install).toBeDefined();
    expect(stages[0]).toContain(`FUEGO_POOL_REQUIRE_NATIVE=1 ${install}`);
    expect(stages[0]).toContain('npm prune --omit=dev');
  });

  it('runs in node:20-bookworm-slim as a user other than root', () => {
    expect(stages[1]).toMatch(/^node:20-bookworm-slim\n/);
    const user = /^USER (\S+)$/m.exec(stages[1] ?? '')?.[1];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
  });

  it('compose builds the pool from the Dockerfile and keeps Redis with AOF on', () => {
    expect(compose).toMatch(/^ {2}pool:\n(?: {4}#.*\n)* {4}build: \.$/m);
    expect(compose).toMatch(/- --appendonly\n\s+- "yes"/);
  });

  it("builds and ships every native addon of the pool's that binding.gyp defines, and no benchmark's", () => {
    const gyp = readFileSync(join(ROOT, 'binding.gyp'), 'utf8');
    const all = [...gyp.matchAll(/"target_name":\s*"([^"]+)"/g)].map((m) => m[1]!);
    // fuego_bench_*: the benchmarks' own tools (native/bench_*.cc), which the pool never loads.
    const targets = all.filter((target) => !target.startsWith('fuego_bench_'));
    expect(targets.length).toBeGreaterThanOrEqual(3);
    for (const benchmarkOnly of all.filter((target) => !targets.includes(target))) {
      expect(stages[1]).not.toContain(`build/Release/${benchmarkOnly}.node`);
    }
    for (const target of targets) {
      const file = `build/Release/${target}.node`;
      expect(stages[0], `${file} checked after the install`).toContain(`test -f ${file}`);
      expect(stages[1], `${file} copied into the runtime image`).toContain(
        `COPY --from=build /app/${file} ${file}`,
      );
    }
  });

  it("the runtime stage's files run the pool CLI with the native addon", () => {
    const stage = mkdtempSync(join(tmpdir(), 'fuego-image-'));
    scratch.push(stage);
    for (const match of (stages[1] ?? '').matchAll(/^COPY (.+)$/gm)) {
      const words = match[1]!.split(/\s+/).filter((w) => !w.startsWith('--'));
      const destination = words.pop()!;
      for (const source of words) {
        const from = join(ROOT, source.replace(/^\/app\//, ''));
        const to = destination.endsWith('/') ? join(stage, basename(from)) : join(stage, destination);
        mkdirSync(dirname(to), { recursive: true });
        // node_modules is linked, not copied (the worktree's, with dev packages: only size differs).
        if (basename(from) === 'node_modules') symlinkSync(from, to);
        else cpSync(from, to, { recursive: true });
      }
    }
    const hash = spawnSync(process.execPath, ['bin/fuego-pool.js', 'hash', '--impl', 'native', '00'], {
      cwd: stage,
      encoding: 'utf8',
    });
    expect(hash.stderr).toBe('');
    expect(hash.stdout.trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(hash.status).toBe(0);
  });
});
