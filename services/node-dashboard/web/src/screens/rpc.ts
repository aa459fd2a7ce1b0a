import { ApiError, api, describeError } from '../api.ts'
import { h, replace } from '../dom.ts'
import { formatTime } from '../format.ts'
import { jsonView } from '../json-view.ts'
import type { ScreenContext } from '../main.ts'
import { bitcoinCliCommand, buildParams, type RpcArgument } from '../rpc-args.ts'
import { clearHistory, type HistoryEntry, loadHistory, recordCall } from '../rpc-history.ts'
import { curlCommand, methodNamePattern, parseParams } from '../rpc-tools.ts'
import { type Catalog, normalizeCatalog, renderCatalogList } from './rpc-catalog.ts'
import { createRiskDialog } from './rpc-confirm.ts'
import { renderArgumentForm } from './rpc-form.ts'

/** What the help (or risk) route says of a method; until known, a method counts as changing state, with secret params. */
interface MethodInfo {
  risk: string
  secretParams: boolean
  args: RpcArgument[]
}
const UNKNOWN_METHOD: MethodInfo = { risk: 'changes_state', secretParams: true, args: [] }

let catalogCache: Catalog | null = null
const methodInfo = new Map<string, { info: MethodInfo; text: string }>()

/** At logout: the stored call history and what this page learned from the node. */
export function clearRpcHistory(): void {
  clearHistory(localStorage)
  catalogCache = null
  methodInfo.clear()
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
  const cliEl = h('textarea', {
    class: 'curl',
    readonly: true,
    rows: '3',
    'aria-label': 'bitcoin-cli command',
    'data-testid': 'rpc-cli',
  })
  cliEl.hidden = true
  const argsEl = h('fieldset', { class: 'rpc-args', 'data-testid': 'rpc-args' })
  argsEl.hidden = true
  const riskNote = h('p', { class: 'muted', 'data-testid': 'rpc-risk', 'aria-live': 'polite' })
  const riskDialog = createRiskDialog()
  let history: HistoryEntry[] = loadHistory(localStorage)
  // The method whose help (and argument form) is shown.
  let shown: { name: string; info: MethodInfo } | null = null

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
        ? h('li', { class: 'muted' }, 'No calls yet.')
        : history.map((e: HistoryEntry) =>
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
                    params.value = JSON.stringify(e.params ?? [])
                    wallet.value = e.wallet ?? ''
                    checkParams()
                    void showHelp(e.method, { fillForm: false })
                  },
                },
                `${formatTime(new Date(e.at))} ${e.method}`,
              ),
              ` ${e.ok ? 'ok' : 'failed'} · ${e.ms} ms${e.params === null ? ' · params not kept' : ''}`,
            ),
          ),
    )
  }

  /** The help of `name` with its risk and arguments; fetched once per method and page. */
  async function loadMethodInfo(name: string): Promise<{ info: MethodInfo; text: string }> {
    const known = methodInfo.get(name)
    if (known) return known
    try {
      const body = await api<Record<string, unknown>>('GET', `/api/rpc/help/${encodeURIComponent(name)}`)
      const info: MethodInfo = {
        risk: String(body?.risk ?? 'changes_state'),
        secretParams: body?.secret_params !== false,
        args: Array.isArray(body?.arguments) ? (body.arguments as RpcArgument[]) : [],
      }
      const loaded = { info, text: String(body?.help ?? '') }
      methodInfo.set(name, loaded)
      return loaded
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error
      // Not in the node's help (a hidden method such as invalidateblock): the dashboard's table still knows its class.
      const risk = await api<Record<string, unknown>>('GET', `/api/rpc/risk/${encodeURIComponent(name)}`)
      const info = {
        ...UNKNOWN_METHOD,
        risk: String(risk?.risk ?? UNKNOWN_METHOD.risk),
        // Its params are never kept: the table cannot vouch for what an unlisted method takes.
        secretParams: true,
      }
      return { info, text: describeError(error) }
    }
  }

  function showRisk(name: string, info: MethodInfo): void {
    const labels: Record<string, string> = {
      read_only: 'read-only',
      wallet_read: 'reads wallet data',
      changes_state: 'changes node state',
      funds_or_keys: 'moves funds or exposes keys',
      stops_or_damages: 'stops or damages the node',
    }
    riskNote.dataset.risk = info.risk
    replace(
      riskNote,
      `${name}: ${labels[info.risk] ?? labels.changes_state}${info.risk === 'read_only' ? '' : ' (asks to confirm)'}`,
    )
  }

  async function showHelp(name: string, { fillForm = true } = {}): Promise<void> {
    if (fillForm) method.value = name
    replace(helpEl, `Loading help for ${name}…`)
    try {
      const { info, text } = await loadMethodInfo(name)
      if (stopped || method.value.trim() !== name) return
      replace(helpEl, text)
      shown = { name, info }
      showRisk(name, info)
      renderArgumentForm(argsEl, info.args, (texts) => {
        const built = buildParams(info.args, texts)
        if (built.ok) params.value = JSON.stringify(built.params)
        replace(paramsError, built.ok ? '' : built.error)
        params.setAttribute('aria-invalid', String(!built.ok))
      })
    } catch (error) {
      if (!stopped) replace(helpEl, describeError(error))
    }
  }

  // Typing a method the node lists loads its help and form too, not only picking it from the list.
  let typedTimer: ReturnType<typeof setTimeout> | undefined
  method.addEventListener('input', () => {
    clearTimeout(typedTimer)
    const name = method.value.trim()
    const listed = catalogCache?.some((c) => c.methods.some((m) => m.name === name))
    if (listed && shown?.name !== name) typedTimer = setTimeout(() => void showHelp(name, { fillForm: false }), 250)
  })

  const renderCatalog = (catalog: Catalog) => renderCatalogList(catalogEl, catalog, filter.value, (name) => void showHelp(name))

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
    send.disabled = true
    let info: MethodInfo
    try {
      info = (await loadMethodInfo(name)).info
    } catch (error) {
      send.disabled = false
      replace(resultEl, h('p', { class: 'error', role: 'alert' }, describeError(error)))
      return
    }
    showRisk(name, info)
    if (!(await riskDialog.confirm(name, info.risk))) {
      send.disabled = false
      replace(resultEl, h('p', { class: 'muted' }, `${name} was not called.`))
      return
    }
    curlEl.value = curlCommand(rpcUrl, name, check.params, walletName ?? (defaultWallet || null))
    curlEl.hidden = false
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
      const entry = { at: new Date().toISOString(), method: name, params: check.params, wallet: walletName, ok }
      history = recordCall(localStorage, history, { ...entry, ms: Math.round(performance.now() - started) }, info.secretParams)
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

  async function copyCli(): Promise<void> {
    const check = checkParams()
    const name = method.value.trim() || 'help'
    const target = wallet.value.trim() || defaultWallet || null
    const args = shown?.name === name ? shown.info.args : []
    cliEl.value = bitcoinCliCommand(rpcUrl, name, check.ok ? check.params : [], target, args)
    cliEl.hidden = false
    try {
      await navigator.clipboard.writeText(cliEl.value)
      replace(copyNote, 'Copied. bitcoin-cli reads the RPC password of $RPC_USER from the terminal.')
    } catch {
      cliEl.select()
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
    riskNote,
    argsEl,
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
      h('button', { type: 'button', class: 'secondary', onclick: copyCli }, 'Copy as bitcoin-cli'),
      copyNote,
    ),
    curlEl,
    cliEl,
    riskDialog.element,
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
    clearTimeout(typedTimer)
    riskDialog.close()
  }
}
