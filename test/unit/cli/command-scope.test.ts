import { closeWhenDone, commandScope } from '../../../src/cli/command-scope';

function closable(name: string, closed: string[]) {
  return { close: async () => void closed.push(name) };
}

describe('a command scope', () => {
  it('closes what the command opened once it ends, also when it fails', async () => {
    const closed: string[] = [];
    await commandScope(async () => {
      closeWhenDone(closable('first', closed));
      await new Promise((resolve) => setTimeout(resolve, 1));
      closeWhenDone(closable('after an await', closed));
      expect(closed).toEqual([]);
    });
    expect(closed).toEqual(['first', 'after an await']);
    await expect(
      commandScope(async () => {
        closeWhenDone(closable('failed', closed));
        throw new Error('the command failed');
      }),
    ).rejects.toThrow('the command failed');
    expect(closed).toContain('failed');
  });

  it('closes only its own when two run at once, and a close that fails does not hide the result', async () => {
    const closed: string[] = [];
    let finishSlow!: () => void;
    const slow = commandScope(async () => {
      closeWhenDone(closable('slow', closed));
      await new Promise<void>((resolve) => (finishSlow = resolve));
    });
    const quick = await commandScope(async () => {
      closeWhenDone(closable('quick', closed));
      closeWhenDone({ close: () => Promise.reject(new Error('already closed')) });
      return 'done';
    });
    expect(quick).toBe('done');
    expect(closed).toEqual(['quick']);
    finishSlow();
    await slow;
    expect(closed).toEqual(['quick', 'slow']);
  });

  it('outside a command leaves the closing to the caller', () => {
    const closed: string[] = [];
    const connection = closable('outside', closed);
    expect(closeWhenDone(connection)).toBe(connection);
    expect(closed).toEqual([]);
  });
});
