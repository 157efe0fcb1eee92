import { join } from 'node:path';
import type { ControlServerModules } from '../../src/servers/control/control-server.js';
import { type ControlServer, startControlServer } from '../../src/servers/control/control-server.js';
import { controlServerOptions } from '../helpers/config-defaults.js';
import { controlModules, type TempDir, tempDir } from '../servers/control/control-fakes.js';

/** A control server with fake pool parts in a private temp dir, for CLI tests. */
export interface ControlFixture {
  readonly socketPath: string;
  readonly modules: ReturnType<typeof controlModules>;
  stop(): Promise<void>;
}

export async function startControlFixture(
  overrides: Partial<ControlServerModules> = {},
  options: { heartbeatMs?: number } = {},
): Promise<ControlFixture> {
  const dir: TempDir = tempDir();
  const socketPath = join(dir.path, 'control.sock');
  const modules = controlModules(overrides);
  let server: ControlServer;
  try {
    server = await startControlServer(controlServerOptions({ socketPath, ...options }), modules);
  } catch (error) {
    dir.remove();
    throw error;
  }
  return {
    socketPath,
    modules,
    async stop() {
      await server.close();
      dir.remove();
    },
  };
}
