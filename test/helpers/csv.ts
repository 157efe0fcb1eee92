/** RFC 4180 reader for the tests (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ',') {
      row.push(field);
      field = '';
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  return rows;
}

/** The values of column `name` (the header row names it), without the header. */
export function csvColumn(rows: readonly string[][], name: string): string[] {
  const index = rows[0]?.indexOf(name) ?? -1;
  if (index < 0) throw new Error(`no column ${name} in ${rows[0]?.join(',')}`);
  return rows.slice(1).map((row) => row[index] ?? '');
}
