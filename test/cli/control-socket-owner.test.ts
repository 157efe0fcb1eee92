import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCliForTest } from '../helpers/cli.js';
import { type ControlFixture, startControlFixture } from './control-cli-fixture.js';

describe('a control socket of another user (CONTROL.md: the CLI refuses it)', () => {
  let fixture: ControlFixture | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await fixture?.stop();
    fixture = undefined;
  });

  // A user who is not root is refused another user's socket wherever it is: the message must
  // say what to do (run as the pool's user), not blame a directory that nobody else can write to.
  it('tells a user other than root to run the command as the owner, exit 1', async () => {
    fixture = await startControlFixture();
    const owner = process.getuid?.() ?? 0;
    const otherUser = owner + 1000;
    vi.spyOn(process as { getuid: () => number }, 'getuid').mockReturnValue(otherUser);
    const run = await runCliForTest(['status', '--socket', fixture.socketPath]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('[SOCKET_NOT_OWNED]');
    expect(run.stderr).toContain(`owned by uid ${owner}, not by you (uid ${otherUser})`);
    expect(run.stderr).toContain('run this as the user that runs the pool');
    expect(run.stderr).not.toContain('directory others could write to');
  });
});
