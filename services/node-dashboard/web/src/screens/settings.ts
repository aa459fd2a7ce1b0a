import { ApiError, api, describeError } from '../api.ts'
import { h, replace } from '../dom.ts'
import type { ScreenContext } from '../main.ts'

interface FieldDef {
  name: string
  label: string
  hint?: string
  type?: 'text' | 'number' | 'secret'
  autocomplete?: string
}

const fields: FieldDef[] = [
  { name: 'rpc_url', label: 'RPC URL', hint: 'http(s)://host:port of the node, e.g. http://host.docker.internal:8332' },
  { name: 'rpc_username', label: 'RPC username' },
  {
    name: 'rpc_password',
    label: 'RPC password',
    type: 'secret',
    hint: 'Cleared when the RPC URL moves to another scheme, host or port, unless you enter it again in the same save.',
  },
  {
    name: 'rpc_cookie_path',
    label: 'RPC cookie file',
    hint: "Instead of a password: the node's .cookie (e.g. /home/bitcoin/.bitcoin/.cookie), read on this host or over SSH, again after each node restart.",
  },
  { name: 'rpc_wallet', label: 'Wallet', hint: 'optional; empty shows no wallet card' },
  { name: 'ssh_host', label: 'SSH host' },
  { name: 'ssh_port', label: 'SSH port', type: 'number', hint: '1 to 65535' },
  { name: 'ssh_username', label: 'SSH username' },
  {
    name: 'ssh_password',
    label: 'SSH password',
    type: 'secret',
    hint: 'Or a key below. Cleared when the SSH host, port, username or host key fingerprint changes, unless you enter it again in the same save.',
  },
  { name: 'ssh_key_path', label: 'SSH private key path', hint: 'a path inside the dashboard container or host' },
  {
    name: 'ssh_host_key_fingerprint',
    label: 'SSH host key fingerprint',
    hint: 'SHA256:…; recorded on the first connection. Clear it to trust a new host key.',
  },
  { name: 'node_binary', label: 'Node binary', hint: 'path or name, e.g. bitcoind' },
  { name: 'config_path', label: 'Node config file', hint: 'passed as -conf=… when starting' },
]

/** The API's 422 names the field: "Invalid body field 'ssh_port': …" or a `field` member. */
export function fieldOf(error: ApiError): string | null {
  const named = error.body?.field
  if (typeof named === 'string') return named
  const match = /'([a-z_]+)'/.exec(error.detail) ?? /^([a-z_]+)[: ]/.exec(error.detail)
  return match && fields.some((f) => f.name === match[1]) ? match[1] : null
}

export function mountSettings(view: HTMLElement, _ctx: ScreenContext): () => void {
  let stopped = false
  const inputs = new Map<string, HTMLInputElement>()
  const errors = new Map<string, HTMLElement>()
  const secretState = new Map<string, { set: boolean; replacing: boolean; label: HTMLElement; button: HTMLButtonElement }>()
  const formError = h('p', { class: 'error', role: 'alert', 'data-testid': 'settings-error' })
  const saved = h('p', { class: 'ok', role: 'status', 'data-testid': 'settings-status' })
  const testResult = h('p', { role: 'status', 'data-testid': 'test-result' })
  const sshTestResult = h('p', { role: 'status', 'data-testid': 'test-ssh-result' })
  const saveButton = h('button', { type: 'submit', 'data-testid': 'settings-save' }, 'Save')

  function clearErrors(): void {
    for (const [name, el] of errors) {
      replace(el, '')
      inputs.get(name)?.removeAttribute('aria-invalid')
    }
    replace(formError, '')
  }

  function fieldRow(def: FieldDef): HTMLElement {
    const id = `setting-${def.name}`
    const errorEl = h('p', { id: `${id}-error`, class: 'field-error', 'data-testid': `error-${def.name}` })
    const hintId = def.hint ? `${id}-hint` : null
    const input = h('input', {
      id,
      name: def.name,
      type: def.type === 'secret' ? 'password' : 'text',
      inputmode: def.type === 'number' ? 'numeric' : null,
      autocomplete: def.type === 'secret' ? 'new-password' : 'off',
      spellcheck: 'false',
      'aria-describedby': [hintId, `${id}-error`].filter(Boolean).join(' '),
    })
    inputs.set(def.name, input)
    errors.set(def.name, errorEl)
    let secretControls: HTMLElement | null = null
    if (def.type === 'secret') {
      const label = h('span', { class: 'badge', 'data-testid': `secret-${def.name}` })
      const button = h('button', { type: 'button', class: 'secondary' }, 'Replace')
      const state = { set: false, replacing: false, label, button }
      secretState.set(def.name, state)
      button.addEventListener('click', () => {
        state.replacing = !state.replacing
        input.hidden = !state.replacing
        input.value = ''
        replace(button, state.replacing ? 'Keep current' : 'Replace')
        if (state.replacing) input.focus()
      })
      input.hidden = true
      secretControls = h('div', { class: 'secret' }, label, button)
    }
    return h(
      'div',
      { class: 'field' },
      h('label', { for: id }, def.label),
      secretControls,
      input,
      def.hint ? h('p', { id: hintId, class: 'hint' }, def.hint) : null,
      errorEl,
    )
  }

  function fill(settings: Record<string, unknown>): void {
    for (const def of fields) {
      const input = inputs.get(def.name)!
      const value = settings[def.name]
      if (def.type === 'secret') {
        const state = secretState.get(def.name)!
        state.set = typeof value === 'string' && value !== ''
        state.replacing = false
        input.hidden = true
        input.value = ''
        replace(state.label, state.set ? 'set' : 'not set')
        replace(state.button, state.set ? 'Replace' : 'Set')
      } else {
        input.value = value === null || value === undefined ? '' : String(value)
      }
    }
  }

  function collect(): Record<string, unknown> {
    const body: Record<string, unknown> = {}
    for (const def of fields) {
      const input = inputs.get(def.name)!
      if (def.type === 'secret') {
        // Untouched secrets are left out, so the stored value is kept; a cleared replacement removes it.
        if (secretState.get(def.name)!.replacing) body[def.name] = input.value
      } else if (def.type === 'number') {
        const raw = input.value.trim()
        if (raw !== '') body[def.name] = /^-?\d+$/.test(raw) ? Number(raw) : raw
      } else {
        body[def.name] = input.value
      }
    }
    return body
  }

  async function load(): Promise<void> {
    try {
      const settings = await api<Record<string, unknown>>('GET', '/api/settings')
      if (!stopped) fill(settings ?? {})
    } catch (error) {
      if (!stopped && !(error instanceof ApiError && error.status === 401)) replace(formError, describeError(error))
    }
  }

  async function save(event: SubmitEvent): Promise<void> {
    event.preventDefault()
    clearErrors()
    replace(saved, '')
    saveButton.disabled = true
    try {
      const settings = await api<Record<string, unknown>>('PUT', '/api/settings', collect())
      if (stopped) return
      fill(settings ?? {})
      replace(saved, 'Settings saved.')
    } catch (error) {
      if (stopped || (error instanceof ApiError && error.status === 401)) return
      const field = error instanceof ApiError && error.status === 422 ? fieldOf(error) : null
      if (field) {
        replace(errors.get(field)!, describeError(error))
        const input = inputs.get(field)!
        input.setAttribute('aria-invalid', 'true')
        input.focus()
      } else {
        replace(formError, describeError(error))
      }
    } finally {
      saveButton.disabled = false
    }
  }

  /** Runs a server-side test with the form as it is (unsaved changes included) and shows what it found. */
  async function testConnection(kind: 'rpc' | 'ssh', output: HTMLElement): Promise<void> {
    replace(output, kind === 'rpc' ? 'Testing the RPC connection…' : 'Testing the SSH login…')
    output.className = 'muted'
    try {
      const result = await api<{ ok: boolean; failure: string | null; detail: string }>(
        'POST',
        `/api/settings/check/${kind}`,
        collect(),
      )
      if (stopped || !result) return
      replace(output, result.ok ? result.detail : `Failed (${result.failure}): ${result.detail}`)
      output.className = result.ok ? 'ok' : 'error'
    } catch (error) {
      if (stopped) return
      replace(output, `Test failed: ${describeError(error)}`)
      output.className = 'error'
    }
  }

  const form = h(
    'form',
    { class: 'card settings', novalidate: true, onsubmit: save, 'aria-labelledby': 'screen-title' },
    h('fieldset', null, h('legend', null, 'Node RPC'), fields.slice(0, 5).map(fieldRow)),
    h('fieldset', null, h('legend', null, 'SSH (start and restart)'), fields.slice(5).map(fieldRow)),
    formError,
    h(
      'div',
      { class: 'buttons' },
      saveButton,
      h(
        'button',
        { type: 'button', class: 'secondary', 'data-testid': 'test-rpc', onclick: () => testConnection('rpc', testResult) },
        'Test RPC',
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', 'data-testid': 'test-ssh', onclick: () => testConnection('ssh', sshTestResult) },
        'Test SSH',
      ),
    ),
    h('p', { class: 'hint' }, 'The tests use the form as it is, without saving it.'),
    saved,
    testResult,
    sshTestResult,
  )
  replace(view, h('div', { class: 'screen-head' }, h('h1', { id: 'screen-title' }, 'Settings')), form)
  void load()
  return () => {
    stopped = true
  }
}
