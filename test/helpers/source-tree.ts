import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The project's source files as the architecture tests see them: paths relative to src/. */
export const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

export interface SourceFile {
  /** Relative to src/, with forward slashes: `pool/share-processor.ts`. */
  readonly path: string;
  readonly text: string;
  /** Every import and re-export, as written: `ioredis`, `../store/keys.js`. */
  readonly specifiers: readonly string[];
  /** The project files those specifiers name, relative to src/. */
  readonly localImports: readonly string[];
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

// Static imports and re-exports (type-only too: they tie the modules' meaning together as much).
const IMPORT = /^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)';/gms;
const DYNAMIC_IMPORT = /\bimport\(\s*'([^']+)'\s*\)/g;

function specifiersOf(text: string): string[] {
  return [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]!);
}

/** The test files, relative to test/: `pool/vardiff.test.ts`. */
export function readTestTree(): string[] {
  const root = fileURLToPath(new URL('../', import.meta.url));
  return walk(root)
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => relative(root, path).split('\\').join('/'));
}

export function readSourceTree(): SourceFile[] {
  return walk(SRC).map((abs) => {
    const text = readFileSync(abs, 'utf8');
    const specifiers = specifiersOf(text);
    const localImports = specifiers
      .filter((s) => s.startsWith('.'))
      .map((s) =>
        relative(SRC, resolve(dirname(abs), s.replace(/\.js$/, '.ts')))
          .split('\\')
          .join('/'),
      );
    return { path: relative(SRC, abs).split('\\').join('/'), text, specifiers, localImports };
  });
}

/** The zone a file belongs to: its top folder under src/, or the file itself at the top. */
export function zoneOf(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? path : path.slice(0, slash);
}

/** The import cycles between files (strongly connected components of more than one file, or a self-import). */
export function importCycles(files: readonly SourceFile[]): string[][] {
  const edges = new Map(files.map((f) => [f.path, f.localImports]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!edges.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (edges.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

export interface FunctionLength {
  readonly path: string;
  readonly name: string;
  readonly lines: number;
}

/** Every function, method, accessor and arrow function with its length in lines (signature to closing brace). */
export function functionLengths(file: SourceFile): FunctionLength[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      found.push({ path: file.path, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isPrivateIdentifier(named.name)))
    return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}
