import { describe, expect, it } from 'vitest';
import { scriptLayout } from '../../../src/store/scripts/script-layout.js';

describe('scriptLayout', () => {
  const layout = scriptLayout({
    keys: ['batchKey', 'totalsKey'],
    args: ['now', 'batchId'],
    itemKeys: ['balanceKey', 'historyKey'],
    itemArgs: ['address', 'debit'],
  });

  it('lays out the fixed names, the item count, then one group per item', () => {
    const call = layout.call({
      keys: { batchKey: 'b', totalsKey: 't' },
      args: { now: '5', batchId: 'id' },
      items: [
        { keys: { balanceKey: 'bal1', historyKey: 'his1' }, args: { address: 'a1', debit: '1' } },
        { keys: { balanceKey: 'bal2', historyKey: 'his2' }, args: { address: 'a2', debit: '2' } },
      ],
    });
    expect(call.keys).toEqual(['b', 't', 'bal1', 'his1', 'bal2', 'his2']);
    expect(call.args).toEqual(['5', 'id', '2', 'a1', '1', 'a2', '2']);
  });

  it('binds every name to the position call() puts its value at', () => {
    expect(layout.lua).toContain('local batchKey = KEYS[1]');
    expect(layout.lua).toContain('local totalsKey = KEYS[2]');
    expect(layout.lua).toContain('local now = ARGV[1]');
    expect(layout.lua).toContain('local batchId = ARGV[2]');
    expect(layout.lua).toContain('local itemCount = tonumber(ARGV[3])');
    expect(layout.lua).toContain('local at = 2 + (i - 1) * 2');
    expect(layout.lua).toContain('return {balanceKey = KEYS[at + 1], historyKey = KEYS[at + 2]}');
    expect(layout.lua).toContain('local at = 3 + (i - 1) * 2');
    expect(layout.lua).toContain('return {address = ARGV[at + 1], debit = ARGV[at + 2]}');
  });

  it('has no item count or accessors without items', () => {
    const plain = scriptLayout({ keys: ['lockKey'], args: ['lockToken'] });
    expect(plain.call({ keys: { lockKey: 'k' }, args: { lockToken: 't' } })).toEqual({
      keys: ['k'],
      args: ['t'],
    });
    expect(plain.lua).not.toContain('itemCount');
  });

  it('refuses names Lua or the shared preludes already use, duplicates and keys not named ...Key', () => {
    expect(() => scriptLayout({ keys: [], args: ['history'] })).toThrow(/free Lua name/);
    expect(() => scriptLayout({ keys: [], args: ['end'] })).toThrow(/free Lua name/);
    expect(() => scriptLayout({ keys: [], args: ['two_words'] })).toThrow(/free Lua name/);
    expect(() => scriptLayout({ keys: ['aKey'], args: ['aKey'] })).toThrow(/twice/);
    expect(() => scriptLayout({ keys: ['balance'], args: [] })).toThrow(/must end in Key/);
  });

  it('refuses a call that leaves a name without a value', () => {
    const plain = scriptLayout({ keys: ['lockKey'], args: ['lockToken'] });
    const values = { keys: { lockKey: 'k' }, args: {} } as unknown as Parameters<typeof plain.call>[0];
    expect(() => plain.call(values)).toThrow(/no value for lockToken/);
  });
});
