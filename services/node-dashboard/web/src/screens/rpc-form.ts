import { h, replace } from '../dom.ts'
import type { RpcArgument } from '../rpc-args.ts'

/**
 * One labelled field per argument of the method's help (booleans as a choice, JSON types as a text area); `onInput`
 * gets every field's text in position order. Returns nothing to render when the method takes no arguments.
 */
export function renderArgumentForm(container: HTMLElement, args: RpcArgument[], onInput: (texts: string[]) => void): void {
  if (args.length === 0) {
    replace(container)
    container.hidden = true
    return
  }
  const fields = args.map((arg) => {
    const id = `rpc-arg-${arg.position}`
    const type = arg.type.toLowerCase()
    const hintId = `${id}-hint`
    const common = { id, 'aria-describedby': hintId, 'data-arg': arg.name, required: arg.required }
    const input =
      type === 'boolean'
        ? h(
            'select',
            common,
            h('option', { value: '' }, arg.required ? 'choose' : 'default'),
            h('option', null, 'true'),
            h('option', null, 'false'),
          )
        : type.startsWith('json')
          ? h('textarea', { ...common, rows: '2', spellcheck: 'false' })
          : h('input', { ...common, autocomplete: 'off', spellcheck: 'false' })
    const fallback = arg.default === null ? '' : ` Default: ${arg.default}.`
    return {
      input,
      element: h(
        'div',
        { class: 'rpc-arg' },
        h('label', { for: id }, `${arg.position}. ${arg.name} (${arg.type}${arg.required ? ', required' : ''})`),
        input,
        h('p', { id: hintId, class: 'muted' }, `${arg.description}${fallback}`),
      ),
    }
  })
  const emit = () => onInput(fields.map((f) => f.input.value))
  for (const f of fields) f.input.addEventListener(f.input.tagName === 'SELECT' ? 'change' : 'input', emit)
  container.hidden = false
  replace(
    container,
    h('legend', null, 'Arguments (fill in to build the params)'),
    fields.map((f) => f.element),
  )
}
