import type { ScriptCall } from './define-script.js';

type Names = readonly string[];

/** One string per name of the list. */
export type NamedValues<N extends Names> = { readonly [P in N[number]]: string };

export interface ScriptLayoutSpec<K extends Names, A extends Names, IK extends Names, IA extends Names> {
  /** Keys every call passes, in KEYS order; each name is a Lua local in the script. */
  readonly keys: K;
  /** Arguments every call passes, in ARGV order; each name is a Lua local in the script. */
  readonly args: A;
  /** The keys of one item (e.g. one miner's balance and history); item i's group follows the keys. */
  readonly itemKeys?: IK;
  /** The arguments of one item; item i's group follows the args and `itemCount`. */
  readonly itemArgs?: IA;
}

/** The values of one call: a string per name, and one group per item. */
export interface ScriptValues<K extends Names, A extends Names, IK extends Names, IA extends Names> {
  readonly keys: NamedValues<K>;
  readonly args: NamedValues<A>;
  readonly items?: ReadonlyArray<{ readonly keys?: NamedValues<IK>; readonly args?: NamedValues<IA> }>;
}

export interface ScriptLayout<K extends Names, A extends Names, IK extends Names, IA extends Names> {
  /** Lua that binds every name to its KEYS / ARGV entry; the script body starts after it. */
  readonly lua: string;
  /** KEYS and ARGV of one call, laid out as `lua` reads them. */
  call(values: ScriptValues<K, A, IK, IA>): ScriptCall;
  /** How many keys and args the names take: a script that appends groups of its own reads them after these. */
  readonly keyCount: number;
  readonly argCount: number;
}

/** Lower camel case: no `_`, so a name never collides with a snake_case Lua helper. */
const LUA_NAME = /^[a-z][A-Za-z0-9]*$/;
/**
 * Names a layout may not bind: Lua's keywords and globals the scripts call, and the functions of
 * the shared preludes (money-lua-prelude.ts, batch-items.ts), which a local would shadow.
 */
const RESERVED = new Set(
  [
    'and break do else elseif end false for function goto if in local nil not or repeat return then',
    'true until while redis cjson error tonumber tostring string table ipairs pairs unpack',
    'fenced ge field negate history itemCount',
  ]
    .join(' ')
    .split(' '),
);

/**
 * A Lua script's KEYS and ARGV by name. One list of names serves both sides: `lua` is a header
 * that binds each name to a Lua local (`local batchKey = KEYS[3]`), and `call()` lays the values
 * of a typed record out in the same order, so neither the script body nor its caller counts
 * positions. A script with items (one per miner of a batch, say) also gets `itemCount` and the
 * functions `item_keys(i)` / `item_args(i)`, which return item i's group as a table by name.
 * Every key the script touches is still in KEYS, so it stays valid on Redis Cluster.
 *
 * Key names end in `Key`: the Lua helpers shared by several scripts (history, field, ...) cannot
 * be shadowed by a key's local.
 */
export function scriptLayout<
  const K extends Names,
  const A extends Names,
  const IK extends Names = readonly [],
  const IA extends Names = readonly [],
>(spec: ScriptLayoutSpec<K, A, IK, IA>): ScriptLayout<K, A, IK, IA> {
  const itemKeys: Names = spec.itemKeys ?? [];
  const itemArgs: Names = spec.itemArgs ?? [];
  checkNames(spec.keys, itemKeys, spec.args, itemArgs);
  const hasItems = itemKeys.length > 0 || itemArgs.length > 0;
  const lua = layoutLua(spec.keys, spec.args, itemKeys, itemArgs, hasItems);
  return {
    lua,
    keyCount: spec.keys.length,
    argCount: spec.args.length + (hasItems ? 1 : 0),
    call(values) {
      const keys = spec.keys.map((name) => namedValue(values.keys, name));
      const args = spec.args.map((name) => namedValue(values.args, name));
      if (hasItems) {
        const items = values.items ?? [];
        args.push(String(items.length));
        for (const item of items) {
          for (const name of itemKeys) keys.push(namedValue(item.keys, name));
          for (const name of itemArgs) args.push(namedValue(item.args, name));
        }
      }
      return { keys, args };
    },
  };
}

function checkNames(keys: Names, itemKeys: Names, args: Names, itemArgs: Names): void {
  const all = [...keys, ...itemKeys, ...args, ...itemArgs];
  for (const name of all) {
    if (!LUA_NAME.test(name) || RESERVED.has(name)) {
      throw new Error(`script layout: ${name} is not a free Lua name`);
    }
  }
  if (new Set(all).size !== all.length) throw new Error('script layout: a name appears twice');
  for (const name of [...keys, ...itemKeys]) {
    if (!name.endsWith('Key')) throw new Error(`script layout: key name ${name} must end in Key`);
  }
}

function namedValue(values: Readonly<Record<string, string>> | undefined, name: string): string {
  const value = values?.[name];
  if (typeof value !== 'string') throw new Error(`script layout: no value for ${name}`);
  return value;
}

/** `local name = KEYS[n]` per key and `ARGV[n]` per arg, then the item accessors. */
function layoutLua(keys: Names, args: Names, itemKeys: Names, itemArgs: Names, hasItems: boolean): string {
  const lines = [
    ...keys.map((name, index) => `local ${name} = KEYS[${index + 1}]`),
    ...args.map((name, index) => `local ${name} = ARGV[${index + 1}]`),
  ];
  if (hasItems) {
    const countAt = args.length + 1;
    lines.push(`local itemCount = tonumber(ARGV[${countAt}])`);
    if (itemKeys.length > 0) lines.push(groupAccessor('item_keys', 'KEYS', keys.length, itemKeys));
    if (itemArgs.length > 0) lines.push(groupAccessor('item_args', 'ARGV', countAt, itemArgs));
  }
  return `\n${lines.join('\n')}\n`;
}

/** function(i) returning item i's group of `table` (after its first `before` entries) by name. */
function groupAccessor(fn: string, table: string, before: number, names: Names): string {
  const fields = names.map((name, index) => `${name} = ${table}[at + ${index + 1}]`).join(', ');
  return [
    `local function ${fn}(i)`,
    `  local at = ${before} + (i - 1) * ${names.length}`,
    `  return {${fields}}`,
    'end',
  ].join('\n');
}
