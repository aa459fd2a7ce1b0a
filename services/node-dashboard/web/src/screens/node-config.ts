import type { NodeConfigSaved, NodeConfigView } from '../../../src/node-config/use-cases.ts'
import { ApiError, api, describeError } from '../api.ts'
import { setTopOption } from '../conf-edit.ts'
import { h, replace } from '../dom.ts'
import type { ScreenContext } from '../main.ts'

/** The common options offered as fields; everything else is edited in the text. */
const OPTIONS: { key: string; label: string; hint: string }[] = [
  { key: 'chain', label: 'Network (chain)', hint: 'main, test, testnet4, signet or regtest; empty: as the file says otherwise' },
  { key: 'datadir', label: 'Data directory', hint: 'absolute path' },
  { key: 'prune', label: 'Prune (MiB)', hint: '0 = off, 1 = manual, at least 550' },
  { key: 'txindex', label: 'Transaction index', hint: '0 or 1; not with prune' },
  { key: 'dbcache', label: 'Database cache (MiB)', hint: 'at least 4' },
  { key: 'maxconnections', label: 'Max connections', hint: 'whole number' },
  { key: 'maxmempool', label: 'Max mempool (MB)', hint: 'at least 5' },
  { key: 'blocksonly', label: 'Blocks only', hint: '0 or 1' },
  { key: 'rpcbind', label: 'RPC bind', hint: 'address[:port]' },
  { key: 'rpcallowip', label: 'RPC allow IP', hint: 'address or subnet (one here; more lines in the text)' },
]

export function mountNodeConfig(view: HTMLElement, ctx: ScreenContext): () => void {
  let stopped = false
  let loaded: NodeConfigView | null = null
  const info = h('p', { 'data-testid': 'config-info', class: 'muted' }, 'Loading the config file over SSH…')
  const problem = h('p', { class: 'error', role: 'alert', 'data-testid': 'config-error' })
  const status = h('div', { role: 'status', 'data-testid': 'config-status' })
  const textarea = h('textarea', {
    id: 'config-text',
    rows: 18,
    spellcheck: 'false',
    'data-testid': 'config-text',
    'aria-describedby': 'config-text-hint',
  })
  const inputs = new Map<string, HTMLInputElement>()
  const saveButton = h('button', { type: 'submit', 'data-testid': 'config-save', disabled: true }, 'Save…')
  const confirmButton = h('button', { type: 'button', 'data-testid': 'config-confirm' }, 'Save')
  const dialog = h(
    'dialog',
    { 'aria-labelledby': 'config-confirm-title', 'aria-describedby': 'config-confirm-text' },
    h('h2', { id: 'config-confirm-title' }, 'Save the node config?'),
    h(
      'p',
      { id: 'config-confirm-text' },
      'The file on the node host is replaced (the old one is kept as a backup). The node reads it at its next start.',
    ),
    h(
      'div',
      { class: 'buttons' },
      confirmButton,
      h('button', { type: 'button', class: 'secondary', autofocus: true, onclick: () => dialog.close() }, 'Cancel'),
    ),
  )

  const fields = OPTIONS.map(({ key, label, hint }) => {
    const id = `conf-${key}`
    const input = h('input', {
      id,
      name: key,
      type: 'text',
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-describedby': `${id}-hint`,
    })
    // Each field writes its line into the text, which stays the one thing that is saved.
    input.addEventListener('change', () => {
      textarea.value = setTopOption(textarea.value, key, input.value.trim())
    })
    inputs.set(key, input)
    return h('div', { class: 'field' }, h('label', { for: id }, label), input, h('p', { id: `${id}-hint`, class: 'hint' }, hint))
  })

  function show(config: NodeConfigView): void {
    loaded = config
    textarea.value = config.text
    for (const [key, input] of inputs) input.value = config.options[key] ?? ''
    const secrets = config.masked_secrets
      ? ` ${config.masked_secrets} secret value(s) shown as ******** are kept unless you replace them.`
      : ''
    replace(info, `${config.path} on the node host, ${config.size} bytes.${secrets}`)
    replace(problem, config.problem ? `The file as it is now: ${config.problem}` : '')
    saveButton.disabled = false
  }

  async function load(): Promise<void> {
    try {
      const config = await api<NodeConfigView>('GET', '/api/node/config')
      if (!stopped && config) show(config)
    } catch (error) {
      if (stopped || (error instanceof ApiError && error.status === 401)) return
      replace(info, '')
      replace(problem, describeError(error))
    }
  }

  async function save(): Promise<void> {
    if (!loaded) return
    saveButton.disabled = true
    replace(problem, '')
    replace(status, 'Saving…')
    try {
      const saved = await api<NodeConfigSaved>('PUT', '/api/node/config', { text: textarea.value, sha256: loaded.sha256 })
      if (stopped || !saved) return
      show(saved)
      replace(
        status,
        saved.saved
          ? [
              h('p', { class: 'ok' }, `Saved. The previous file is kept as ${saved.backup_path}.`),
              h('pre', { class: 'output', 'data-testid': 'config-diff', tabindex: '0' }, saved.diff),
              h(
                'p',
                { 'data-testid': 'config-restart' },
                'A restart is needed for the node to use it. ',
                h('button', { type: 'button', onclick: () => ctx.navigate('actions') }, 'Restart on the Actions screen'),
              ),
            ]
          : h('p', { class: 'muted' }, 'Nothing changed: nothing was written.'),
      )
    } catch (error) {
      if (stopped || (error instanceof ApiError && error.status === 401)) return
      replace(status, '')
      replace(problem, describeError(error))
      if (error instanceof ApiError && error.status === 409) {
        replace(problem, describeError(error), ' ', h('button', { type: 'button', class: 'secondary', onclick: load }, 'Reload'))
      }
    } finally {
      saveButton.disabled = loaded === null
    }
  }

  confirmButton.addEventListener('click', () => {
    dialog.close()
    void save()
  })
  const form = h(
    'form',
    {
      class: 'card settings',
      novalidate: true,
      'aria-labelledby': 'screen-title',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault()
        if (loaded) dialog.showModal()
      },
    },
    info,
    h('fieldset', null, h('legend', null, 'Common options'), fields),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'config-text' }, 'bitcoin.conf'),
      textarea,
      h('p', { id: 'config-text-hint', class: 'hint' }, 'The whole file; the fields above edit its top section.'),
    ),
    problem,
    h('div', { class: 'buttons' }, saveButton),
    status,
  )
  replace(view, h('div', { class: 'screen-head' }, h('h1', { id: 'screen-title' }, 'Node config')), form, dialog)
  void load()
  return () => {
    stopped = true
    if (dialog.open) dialog.close()
  }
}
