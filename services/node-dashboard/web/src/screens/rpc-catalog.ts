import { h, replace } from '../dom.ts'
import { pick } from '../pick.ts'

export type Catalog = { category: string; methods: { name: string; synopsis: string }[] }[]

/** Accepts the catalog as categories with methods, or as a flat method list carrying a category each. */
export function normalizeCatalog(body: unknown): Catalog {
  const raw = pick(body, 'categories', 'commands') ?? body
  const out = new Map<string, { name: string; synopsis: string }[]>()
  const add = (category: string, m: unknown) => {
    const name = typeof m === 'string' ? m : String(pick(m, 'name', 'method') ?? '')
    if (!name) return
    const synopsis = typeof m === 'string' ? '' : String(pick(m, 'synopsis', 'args', 'arguments', 'signature') ?? '')
    if (!out.has(category)) out.set(category, [])
    out.get(category)!.push({ name, synopsis: synopsis.startsWith(name) ? synopsis.slice(name.length).trim() : synopsis })
  }
  if (Array.isArray(raw)) {
    for (const item of raw) {
      const methods = pick(item, 'methods', 'commands')
      if (Array.isArray(methods)) for (const m of methods) add(String(pick(item, 'name', 'category') ?? 'Other'), m)
      else add(String(pick(item, 'category') ?? 'Other'), item)
    }
  } else if (raw && typeof raw === 'object') {
    for (const [category, methods] of Object.entries(raw)) if (Array.isArray(methods)) for (const m of methods) add(category, m)
  }
  return [...out].map(([category, methods]) => ({ category, methods }))
}

/** The method list under `container`, filtered by `filter` (a substring of the name); picking a method calls `onPick`. */
export function renderCatalogList(
  container: HTMLElement,
  catalog: Catalog,
  filter: string,
  onPick: (name: string) => void,
): void {
  const needle = filter.trim().toLowerCase()
  const groups = catalog
    .map((c) => ({ ...c, methods: c.methods.filter((m) => !needle || m.name.toLowerCase().includes(needle)) }))
    .filter((c) => c.methods.length > 0)
  replace(
    container,
    groups.length === 0
      ? h('p', { class: 'muted' }, 'No method matches the filter.')
      : groups.map((c) =>
          h(
            'details',
            { open: Boolean(needle) || groups.length <= 2 },
            h('summary', null, `${c.category} (${c.methods.length})`),
            h(
              'ul',
              null,
              c.methods.map((m) =>
                h(
                  'li',
                  null,
                  h(
                    'button',
                    { type: 'button', class: 'link', 'data-method': m.name, title: m.synopsis, onclick: () => onPick(m.name) },
                    m.name,
                  ),
                  m.synopsis ? h('span', { class: 'synopsis' }, ` ${m.synopsis}`) : null,
                ),
              ),
            ),
          ),
        ),
  )
}
