/** Tiny DOM builder: every string becomes a text node, so node output can never turn into markup. */
export type Child = Node | string | number | null | undefined | false
type AttrValue = string | number | boolean | null | undefined | ((event: any) => void)
export type Attrs = Record<string, AttrValue>

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value)
    else if (key === 'class') el.className = String(value)
    else el.setAttribute(key, value === true ? '' : String(value))
  }
  append(el, children)
  return el
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

/** Replaces all children of `el`. */
export function replace(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren()
  append(el, children)
}

let uid = 0
/** A unique element id for label/field and aria-describedby pairs. */
export function nextId(prefix: string): string {
  uid += 1
  return `${prefix}-${uid}`
}

/** A definition list of label/value rows, the building block of the overview cards. */
export function rows(items: [string, Child | Child[]][]): HTMLDListElement {
  return h(
    'dl',
    { class: 'rows' },
    items.map(([label, value]) => h('div', null, h('dt', null, label), h('dd', null, value))),
  )
}
