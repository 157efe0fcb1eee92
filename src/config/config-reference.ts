import { z } from 'zod';
import { configSchema } from './schema.js';

/** The parts of a JSON Schema node (as zod's toJSONSchema writes them) the reference shows. */
interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly description?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly pattern?: string;
}

interface Row {
  readonly key: string;
  readonly node: SchemaNode;
  readonly required: boolean;
}

const HEADER = [
  '# Configuration reference',
  '',
  '<!-- Generated from the zod schema in src/config/ by `npm run docs:config`; do not edit by hand. -->',
  '',
  'Every key of the JSON config file `fuego-pool start --config FILE` reads, with its type, its',
  'default, the values it accepts and what it does. Unknown keys are refused at start, naming the',
  'key; a section left out takes all its defaults. Cross-key rules (for example `stratum.tls` when a',
  'port has `"tls": true`) are checked at start as well and are named in the error.',
];

/** The reference as markdown: one table per top-level section, a row per key (arrays as `key[]`). */
export function renderConfigReference(): string {
  const root = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as SchemaNode;
  const lines = [...HEADER];
  const topLevel: Row[] = [];
  for (const [name, node] of Object.entries(root.properties ?? {})) {
    const object = objectOf(node);
    if (object === undefined) {
      topLevel.push({ key: name, node, required: root.required?.includes(name) ?? false });
      continue;
    }
    lines.push('', `## \`${name}\``, '');
    if (node.description !== undefined) lines.push(node.description, '');
    lines.push(...table(rowsOf(object, name)));
  }
  if (topLevel.length > 0) lines.push('', '## Top-level keys', '', ...table(topLevel));
  return `${lines.join('\n')}\n`;
}

/** The object a node stands for (itself, or the object member of a nullable/optional union). */
function objectOf(node: SchemaNode): SchemaNode | undefined {
  if (node.properties !== undefined) return node;
  return (node.anyOf ?? node.oneOf)?.find((member) => member.properties !== undefined);
}

/** The rows of an object's keys, depth first; an object (or array of objects) key adds its own keys. */
function rowsOf(object: SchemaNode, prefix: string): Row[] {
  const rows: Row[] = [];
  for (const [name, node] of Object.entries(object.properties ?? {})) {
    const key = `${prefix}.${name}`;
    rows.push({ key, node, required: object.required?.includes(name) ?? false });
    const inner = objectOf(node);
    if (inner !== undefined) rows.push(...rowsOf(inner, key));
    const items = node.items === undefined ? undefined : objectOf(node.items);
    if (items !== undefined) rows.push(...rowsOf(items, `${key}[]`));
  }
  return rows;
}

function table(rows: readonly Row[]): string[] {
  return [
    '| key | type | default | accepts | what it does |',
    '|---|---|---|---|---|',
    ...rows.map((row) =>
      [`\`${row.key}\``, typeOf(row.node), defaultOf(row), rangeOf(row.node), row.node.description ?? '']
        .map(cell)
        .join(' | ')
        .replace(/^/, '| ')
        .concat(' |'),
    ),
  ];
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function typeOf(node: SchemaNode): string {
  if (node.enum !== undefined) return node.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ');
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  const members = node.anyOf ?? node.oneOf;
  if (members !== undefined) return members.map(typeOf).join(' or ');
  if (node.type === 'array') return `${node.items === undefined ? 'any' : typeOf(node.items)} list`;
  if (Array.isArray(node.type)) return node.type.join(' or ');
  return typeof node.type === 'string' ? node.type : 'any';
}

/** Defaults that depend on the machine and user the pool runs as: in words, so the file is the same everywhere. */
const DEFAULTS_IN_WORDS: Readonly<Record<string, string>> = {
  'control.socketPath': 'a socket in a directory private to the user (see what it does)',
};

function defaultOf(row: Row): string {
  const inWords = DEFAULTS_IN_WORDS[row.key];
  if (inWords !== undefined) return inWords;
  const value = row.node.default;
  if (value === undefined) return row.required ? 'required' : 'unset';
  // A section's default `{}` means "every key at its default", which the keys below show.
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0)
    return 'its keys’ defaults';
  return `\`${JSON.stringify(value)}\``;
}

function rangeOf(node: SchemaNode): string {
  const parts: string[] = [];
  if (node.minimum !== undefined) parts.push(`≥ ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined) parts.push(`> ${node.exclusiveMinimum}`);
  if (node.maximum !== undefined) parts.push(`≤ ${node.maximum}`);
  if (node.exclusiveMaximum !== undefined) parts.push(`< ${node.exclusiveMaximum}`);
  if (node.minLength !== undefined) parts.push(`length ≥ ${node.minLength}`);
  if (node.maxLength !== undefined) parts.push(`length ≤ ${node.maxLength}`);
  if (node.minItems !== undefined) parts.push(`at least ${node.minItems} item(s)`);
  if (node.maxItems !== undefined) parts.push(`at most ${node.maxItems} items`);
  if (node.pattern !== undefined) parts.push(`matches \`${node.pattern}\``);
  const members = node.anyOf ?? node.oneOf;
  if (parts.length === 0 && members !== undefined) return members.map(rangeOf).filter(Boolean).join('; ');
  return parts.join(', ');
}
