import { ApiError, api, describeError } from '../api.ts'
import { h, replace } from '../dom.ts'
import { formatTime } from '../format.ts'
import { jsonView } from '../json-view.ts'
import type { ScreenContext } from '../main.ts'
import { curlCommand, methodNamePattern, parseParams } from '../rpc-tools.ts'
import { type Catalog, normalizeCatalog } from './rpc-catalog.ts'

interface HistoryEntry {
  at: Date
  method: string
  params: unknown[]
  wallet: string | null
  ok: boolean
  ms: number
}

// The call history lives as long as the page (the browser session), never in storage: params may be sensitive.
const history: HistoryEntry[] = []
let catalogCache: Catalog | null = null

export function clearRpcHistory(): void {
  history.length = 0
  catalogCache = null
}

export function mountRpc(view: HTMLElement, _ctx: ScreenContext): () => void {
  let stopped = false
  let rpcUrl = ''
  // The call without an override goes to the settings' wallet; the curl command must too.
  let defaultWallet = ''
  const filter = h('input', { id: 'rpc-filter', type: 'search', placeholder: 'Filter methods', autocomplete: 'off' })
  const catalogEl = h('div', { class: 'catalog', 'data-testid': 'rpc-catalog' }, h('p', null, 'Loading the method list…'))
  const helpEl = h('pre', { class: 'help', 'data-testid': 'rpc-help', tabindex: '0' }, 'Select a method to see its help.')
  const method = h('input', { id: 'rpc-method', autocomplete: 'off', spellcheck: 'false', required: true })
  const params = h('textarea', {
    id: 'rpc-params',
    rows: '3',
    spellcheck: 'false',
    'aria-describedby': 'rpc-params-hint rpc-params-error',
  })
  params.value = '[]'
  const paramsError = h('p', { id: 'rpc-params-error', class: 'field-error', role: 'alert', 'data-testid': 'params-error' })
  const wallet = h('input', { id: 'rpc-wallet', autocomplete: 'off', placeholder: 'settings default' })
  const send = h('button', { type: 'submit', 'data-testid': 'rpc-send' }, 'Call')
  const resultEl = h('div', { class: 'result', 'data-testid': 'rpc-result', 'aria-live': 'polite' })
  const curlEl = h('textarea', {
    class: 'curl',
    readonly: true,
    rows: '4',
    'aria-label': 'curl command',
    'data-testid': 'rpc-curl',
  })
  const copyNote = h('span', { class: 'muted', role: 'status' })
  const historyEl = h('ol', { class: 'history', 'data-testid': 'rpc-history' })
  curlEl.hidden = true

  function checkParams(): ReturnType<typeof parseParams> {
    const check = parseParams(params.value)
    replace(paramsError, check.ok ? '' : check.error)
    params.setAttribute('aria-invalid', String(!check.ok))
    return check
  }

  function renderHistory(): void {
    replace(
      historyEl,
      history.length === 0
        ? h('li', { class: 'muted' }, 'No calls yet in this session.')
        : history.map((e) =>
            h(
              'li',
              null,
              h(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  onclick: () => {
                    method.value = e.method
                    params.value = JSON.stringify(e.params)
                    wallet.value = e.wallet ?? ''
                    checkParams()
                  },
                },
                `${formatTime(e.at)} ${e.method}`,
              ),
              ` ${e.ok ? 'ok' : 'failed'} · ${e.ms} ms`,
            ),
          ),
    )
  }

  async function showHelp(name: string): Promise<void> {
    method.value = name
    replace(helpEl, `Loading help for ${name}…`)
    try {
      const body = await api<Record<string, unknown> | string>('GET', `/api/rpc/help/${encodeURIComponent(name)}`)
      if (stopped) return
      const text = typeof body === 'string' ? body : (body?.help ?? body?.text ?? body?.result ?? JSON.stringify(body, null, 2))
      replace(helpEl, String(text))
    } catch (error) {
      if (!stopped) replace(helpEl, describeError(error))
    }
  }

  function renderCatalog(catalog: Catalog): void {
    const needle = filter.value.trim().toLowerCase()
    const groups = catalog
      .map((c) => ({ ...c, methods: c.methods.filter((m) => !needle || m.name.toLowerCase().includes(needle)) }))
      .filter((c) => c.methods.length > 0)
    replace(
      catalogEl,
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
                      {
                        type: 'button',
                        class: 'link',
                        'data-method': m.name,
                        title: m.synopsis,
                        onclick: () => void showHelp(m.name),
                      },
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

  async function loadCatalog(): Promise<void> {
    try {
      catalogCache ??= normalizeCatalog(await api('GET', '/api/rpc/commands'))
      if (!stopped) renderCatalog(catalogCache)
    } catch (error) {
      if (!stopped) replace(catalogEl, h('p', { class: 'error' }, describeError(error)))
    }
    // rpc_url only feeds the copy-as-curl command; its absence changes nothing else.
    api<Record<string, unknown>>('GET', '/api/settings')
      .then((s) => {
        rpcUrl = String(s?.rpc_url ?? '')
        defaultWallet = String(s?.rpc_wallet ?? '')
        if (defaultWallet) wallet.placeholder = `settings default: ${defaultWallet}`
      })
      .catch(() => {})
  }

  async function call(event: SubmitEvent): Promise<void> {
    event.preventDefault()
    const name = method.value.trim()
    const check = checkParams()
    if (!methodNamePattern.test(name)) {
      replace(resultEl, h('p', { class: 'error', role: 'alert' }, 'Enter a method name (letters, digits and underscores).'))
      method.focus()
      return
    }
    if (!check.ok) {
      params.focus()
      return
    }
    const walletName = wallet.value.trim() || null
    curlEl.value = curlCommand(rpcUrl, name, check.params, walletName ?? (defaultWallet || null))
    curlEl.hidden = false
    send.disabled = true
    replace(resultEl, h('p', { class: 'muted' }, `Calling ${name}…`))
    const started = performance.now()
    let ok = false
    try {
      const body = await api<Record<string, unknown>>('POST', '/api/rpc/call', {
        method: name,
        params: check.params,
        wallet: walletName,
      })
      ok = true
      const value = body && typeof body === 'object' && 'result' in body ? body.result : body
      if (!stopped) replace(resultEl, h('div', { class: 'json-root', 'data-testid': 'rpc-value' }, jsonView(value)))
    } catch (error) {
      if (!stopped && !(error instanceof ApiError && error.status === 401))
        replace(resultEl, h('p', { class: 'error', role: 'alert' }, describeError(error)))
    } finally {
      send.disabled = false
      history.unshift({
        at: new Date(),
        method: name,
        params: check.params,
        wallet: walletName,
        ok,
        ms: Math.round(performance.now() - started),
      })
      history.length = Math.min(history.length, 50)
      if (!stopped) renderHistory()
    }
  }

  async function copyCurl(): Promise<void> {
    const check = checkParams()
    const target = wallet.value.trim() || defaultWallet || null
    curlEl.value = curlCommand(rpcUrl, method.value.trim() || 'help', check.ok ? check.params : [], target)
    curlEl.hidden = false
    try {
      await navigator.clipboard.writeText(curlEl.value)
      replace(copyNote, 'Copied. curl asks for the RPC password of $RPC_USER.')
    } catch {
      curlEl.select()
      replace(copyNote, 'Select and copy the command below.')
    }
  }

  filter.addEventListener('input', () => catalogCache && renderCatalog(catalogCache))
  params.addEventListener('input', () => checkParams())

  const form = h(
    'form',
    { class: 'card rpc-form', novalidate: true, onsubmit: call, 'aria-label': 'Call a method' },
    h('label', { for: 'rpc-method' }, 'Method'),
    method,
    h('label', { for: 'rpc-params' }, 'Params (JSON array)'),
    params,
    h('p', { id: 'rpc-params-hint', class: 'muted' }, 'For example [] or [0] or ["address", 0.1]. Checked before sending.'),
    paramsError,
    h('label', { for: 'rpc-wallet' }, 'Wallet override (optional)'),
    wallet,
    h(
      'div',
      { class: 'buttons' },
      send,
      h('button', { type: 'button', class: 'secondary', onclick: copyCurl }, 'Copy as curl'),
      copyNote,
    ),
    curlEl,
  )

  replace(
    view,
    h('div', { class: 'screen-head' }, h('h1', { id: 'screen-title' }, 'RPC explorer')),
    h(
      'div',
      { class: 'rpc-layout' },
      h(
        'section',
        { class: 'card', 'aria-label': 'Method catalog' },
        h('label', { for: 'rpc-filter' }, 'Filter methods'),
        filter,
        catalogEl,
      ),
      h(
        'div',
        { class: 'rpc-main' },
        form,
        h('section', { class: 'card', 'aria-label': 'Help' }, h('h2', null, 'Help'), helpEl),
        h('section', { class: 'card', 'aria-label': 'Result' }, h('h2', null, 'Result'), resultEl),
        h('section', { class: 'card', 'aria-label': 'History' }, h('h2', null, 'Call history'), historyEl),
      ),
    ),
  )
  renderHistory()
  void loadCatalog()
  return () => {
    stopped = true
  }
}
