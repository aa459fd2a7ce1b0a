import { h, replace } from '../dom.ts'

/** What each class above read_only tells the user before the call (the server's classes, see /api/rpc/help). */
const warnings: Record<string, string> = {
  wallet_read: 'reads wallet data: balances, addresses and transactions.',
  changes_state: "changes the node's state (peers, bans, mempool, chain or wallet settings).",
  unknown: "is not known to this dashboard: it may change the node's state.",
  funds_or_keys: 'can spend funds, sign, unlock the wallet or reveal private keys.',
  stops_or_damages: 'stops the node or can damage its chain state.',
}

export interface RiskDialog {
  element: HTMLDialogElement
  /** Resolves true when the user confirms; read_only calls need no confirmation. */
  confirm(method: string, risk: string): Promise<boolean>
  close(): void
}

/**
 * The confirmation before a call above read_only: Cancel has the focus, so Enter alone never sends it; the top
 * class (stops_or_damages) also asks the user to type the method name.
 */
export function createRiskDialog(): RiskDialog {
  const text = h('p', { id: 'rpc-confirm-text', 'data-testid': 'rpc-confirm-text' })
  const typed = h('input', { id: 'rpc-confirm-typed', autocomplete: 'off', spellcheck: 'false' })
  const typedLabel = h('label', { for: 'rpc-confirm-typed' }, 'Type the method name to confirm')
  const typedField = h('div', null, typedLabel, typed)
  const ok = h('button', { type: 'button', class: 'danger', 'data-testid': 'rpc-confirm' }, 'Call')
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel')
  const element = h(
    'dialog',
    { 'aria-labelledby': 'rpc-confirm-title', 'aria-describedby': 'rpc-confirm-text', 'data-testid': 'rpc-confirm-dialog' },
    h('h2', { id: 'rpc-confirm-title' }, 'Confirm this call'),
    text,
    typedField,
    h('div', { class: 'buttons' }, ok, cancel),
  )
  let settle: ((value: boolean) => void) | null = null
  const finish = (value: boolean) => {
    const done = settle
    settle = null
    if (element.open) element.close()
    done?.(value)
  }
  ok.addEventListener('click', () => finish(true))
  cancel.addEventListener('click', () => finish(false))
  element.addEventListener('close', () => finish(false))

  return {
    element,
    confirm(method, risk) {
      if (risk === 'read_only') return Promise.resolve(true)
      finish(false)
      const strict = risk === 'stops_or_damages'
      replace(text, `${method} ${warnings[risk] ?? warnings.unknown}${strict ? ' Type its name to go on.' : ' Continue?'}`)
      typedField.hidden = !strict
      typed.value = ''
      ok.disabled = strict
      typed.oninput = () => {
        ok.disabled = typed.value.trim() !== method
      }
      element.showModal()
      ;(strict ? typed : cancel).focus()
      return new Promise((resolve) => {
        settle = resolve
      })
    },
    close: () => finish(false),
  }
}
