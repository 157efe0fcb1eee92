/**
 * Minimal DOM helpers. Every value from the API (addresses, worker names, hashes) is set as text,
 * never parsed as HTML: a miner chooses its own worker name.
 */

/** el('td', { class: 'num', title: 'x' }, 'text', otherNode) */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, String(value));
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

/** The element with `id`; a missing one is a bug in index.html, so fail loudly. */
export function byId(id) {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`#${id} missing from index.html`);
  return node;
}

export function setText(id, text) {
  byId(id).textContent = text;
}

/** A relative time that the page's clock keeps current (see refreshRelativeTimes). */
export function agoNode(ms, format, formatTitle, tag = 'span') {
  const node = el(tag, { 'data-ago': ms, title: formatTitle(ms) });
  node.textContent = format(ms, Date.now());
  return node;
}

/** Re-renders every `[data-ago]` element inside `root`. */
export function refreshRelativeTimes(root, format) {
  const now = Date.now();
  for (const node of root.querySelectorAll('[data-ago]')) {
    node.textContent = format(Number(node.getAttribute('data-ago')), now);
  }
}

/**
 * Replaces a table body's rows: one row per item from `toCells(item)` (each cell a Node or text,
 * or an [attributes, content] pair), or a single full-width row with `emptyText`.
 */
export function fillTable(tbody, items, toCells, emptyText) {
  const columns = tbody.closest('table')?.querySelectorAll('thead th').length ?? 1;
  const rows = items.map((item) =>
    el(
      'tr',
      {},
      ...toCells(item).map((cell) => (Array.isArray(cell) ? el('td', cell[0], cell[1]) : el('td', {}, cell))),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: columns, class: 'empty' }, emptyText)));
  tbody.replaceChildren(...rows);
}
