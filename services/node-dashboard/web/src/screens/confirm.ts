import { h, replace } from '../dom.ts'

/** A modal yes/no question; Cancel has the focus first, so Enter never confirms by accident. */
export function confirmDialog(idPrefix: string) {
  const text = h('p', { id: `${idPrefix}-confirm-text`, 'data-testid': 'confirm-text' })
  const confirm = h('button', { type: 'button', class: 'danger', 'data-testid': 'confirm' }, 'Confirm')
  const cancel = h('button', { type: 'button', class: 'secondary', autofocus: true }, 'Cancel')
  const element = h(
    'dialog',
    { 'aria-labelledby': `${idPrefix}-confirm-title`, 'aria-describedby': `${idPrefix}-confirm-text` },
    h('h2', { id: `${idPrefix}-confirm-title` }, 'Are you sure?'),
    text,
    h('div', { class: 'buttons' }, confirm, cancel),
  )
  let answer: ((yes: boolean) => void) | null = null
  const settle = (yes: boolean) => {
    const done = answer
    answer = null
    if (element.open) element.close()
    done?.(yes)
  }
  confirm.addEventListener('click', () => settle(true))
  cancel.addEventListener('click', () => settle(false))
  // Escape closes the dialog: that is a no.
  element.addEventListener('close', () => settle(false))
  return {
    element,
    ask(question: string, confirmLabel: string): Promise<boolean> {
      settle(false)
      replace(text, question)
      replace(confirm, confirmLabel)
      element.showModal()
      return new Promise((resolve) => {
        answer = resolve
      })
    },
    close: () => settle(false),
  }
}
