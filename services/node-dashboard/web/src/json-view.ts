import { h } from './dom.ts'

/** Formatted, collapsible JSON built from text nodes only: node output is never parsed as HTML. */
export function jsonView(value: unknown, depth = 0): HTMLElement {
  if (value === null || typeof value !== 'object') return scalar(value)
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value)
  const open = Array.isArray(value) ? '[' : '{'
  const close = Array.isArray(value) ? ']' : '}'
  if (entries.length === 0) return h('span', { class: 'json-punct' }, `${open}${close}`)
  const summary = h(
    'summary',
    null,
    h('span', { class: 'json-punct' }, open),
    h('span', { class: 'json-count' }, ` ${entries.length} ${Array.isArray(value) ? 'items' : 'keys'} `),
  )
  const list = h(
    'ul',
    { class: 'json-list' },
    entries.map(([key, v], i) =>
      h(
        'li',
        null,
        Array.isArray(value) ? null : h('span', { class: 'json-key' }, JSON.stringify(key)),
        Array.isArray(value) ? null : h('span', { class: 'json-punct' }, ': '),
        jsonView(v, depth + 1),
        i < entries.length - 1 ? h('span', { class: 'json-punct' }, ',') : null,
      ),
    ),
  )
  // Deep levels start folded so a getblock verbosity 2 result stays readable.
  return h('details', { class: 'json', open: depth < 2 }, summary, list, h('span', { class: 'json-punct' }, close))
}

function scalar(value: unknown): HTMLElement {
  const kind = value === null ? 'null' : typeof value
  return h('span', { class: `json-${kind}` }, value === undefined ? 'undefined' : JSON.stringify(value))
}
