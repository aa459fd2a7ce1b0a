import '../styles/alerts.css'
import { ApiError, api, describeError } from '../api.ts'
import { type Child, h, replace } from '../dom.ts'
import { formatDateTime } from '../format.ts'
import type { ScreenContext } from '../main.ts'

interface Rule {
  id: number
  kind: string
  threshold: number | null
  description: string
  enabled: boolean
  firing: boolean
  detail: string
  changed_at: string | null
}
interface Target {
  id: number
  name: string
  format: string
  url: string
  url_hint: string
  enabled: boolean
}
interface Delivery {
  id: number
  target_name: string | null
  event: string
  title: string
  state: string
  attempts: number
  last_status: number | null
  last_error: string | null
  created_at: string
}

const KINDS: { kind: string; label: string; unit: string | null; step: string }[] = [
  { kind: 'node_unreachable', label: 'Node unreachable for N minutes', unit: 'minutes', step: '1' },
  { kind: 'tip_stalled', label: 'Tip not advancing for N minutes', unit: 'minutes', step: '1' },
  { kind: 'peers_below', label: 'Fewer than N peers', unit: 'peers', step: '1' },
  { kind: 'initial_download', label: 'Node in initial block download or warm-up', unit: null, step: '1' },
  { kind: 'mempool_above', label: 'Mempool above N MB', unit: 'MB', step: 'any' },
  { kind: 'wallet_balance_below', label: 'Wallet balance below N BTC', unit: 'BTC', step: 'any' },
]
const FORMATS = [
  ['json', 'Generic JSON'],
  ['ntfy', 'ntfy'],
  ['slack', 'Slack'],
  ['discord', 'Discord'],
]
const REFRESH_MS = 10_000

function table(caption: string, headings: string[], rows: HTMLElement[], empty: string, testid: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted', 'data-testid': testid }, empty)
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'data-table', 'data-testid': testid },
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headings.map((text) => h('th', { scope: 'col' }, text)),
        ),
      ),
      h('tbody', null, rows),
    ),
  )
}

function field(id: string, label: string, control: HTMLElement, hint?: Child): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('p', { class: 'hint' }, hint) : null)
}

export function mountAlerts(view: HTMLElement, _ctx: ScreenContext): () => void {
  let stopped = false
  const rulesHolder = h('div')
  const targetsHolder = h('div')
  const deliveriesHolder = h('div', { 'aria-live': 'polite' })
  const status = h('p', { role: 'status', 'data-testid': 'alerts-status' })
  const ruleError = h('p', { class: 'error', role: 'alert', 'data-testid': 'rule-error' })
  const targetError = h('p', { class: 'error', role: 'alert', 'data-testid': 'target-error' })

  const say = (text: string, ok = true) => {
    replace(status, text)
    status.className = ok ? 'ok' : 'error'
  }
  const failed = (error: unknown) => !(error instanceof ApiError && error.status === 401) && !stopped

  // One confirmation dialog for deletions; Cancel is focused first so Enter does not delete.
  const confirmText = h('p', { id: 'alerts-confirm-text' })
  const confirmButton = h('button', { type: 'button', class: 'danger', 'data-testid': 'confirm-delete' }, 'Delete')
  const dialog = h(
    'dialog',
    { 'aria-labelledby': 'alerts-confirm-title', 'aria-describedby': 'alerts-confirm-text' },
    h('h2', { id: 'alerts-confirm-title' }, 'Delete?'),
    confirmText,
    h(
      'div',
      { class: 'buttons' },
      confirmButton,
      h('button', { type: 'button', class: 'secondary', autofocus: true, onclick: () => dialog.close() }, 'Cancel'),
    ),
  )
  let pendingDelete: (() => Promise<void>) | null = null
  confirmButton.addEventListener('click', () => {
    dialog.close()
    void pendingDelete?.()
  })
  const confirmDelete = (text: string, run: () => Promise<void>) => {
    pendingDelete = run
    replace(confirmText, text)
    dialog.showModal()
  }

  function ruleRow(rule: Rule): HTMLElement {
    const state = !rule.enabled ? 'disabled' : rule.firing ? 'firing' : 'not firing'
    return h(
      'tr',
      { 'data-rule': rule.id },
      h('td', null, rule.description),
      h(
        'td',
        null,
        h('span', { class: `badge ${rule.firing ? 'firing' : rule.enabled ? 'quiet' : ''}`, 'data-testid': 'rule-state' }, state),
        rule.detail ? h('div', { class: 'hint' }, rule.detail) : null,
      ),
      h('td', null, formatDateTime(rule.changed_at)),
      h(
        'td',
        null,
        h(
          'div',
          { class: 'buttons' },
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: () => void change(`/api/alerts/rules/${rule.id}`, { enabled: !rule.enabled }),
            },
            rule.enabled ? `Disable` : `Enable`,
            h('span', { class: 'visually-hidden' }, ` rule: ${rule.description}`),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () =>
                confirmDelete(`Delete the rule "${rule.description}"?`, () => remove(`/api/alerts/rules/${rule.id}`)),
            },
            'Delete',
            h('span', { class: 'visually-hidden' }, ` rule: ${rule.description}`),
          ),
        ),
      ),
    )
  }

  function targetRow(target: Target): HTMLElement {
    return h(
      'tr',
      { 'data-target': target.id },
      h('td', null, target.name),
      h('td', null, FORMATS.find(([f]) => f === target.format)?.[1] ?? target.format),
      h('td', null, h('code', { 'data-testid': 'target-url' }, `${target.url_hint}/${target.url}`)),
      h(
        'td',
        null,
        h(
          'div',
          { class: 'buttons' },
          h(
            'button',
            { type: 'button', class: 'secondary', 'data-testid': 'send-test', onclick: () => void sendTest(target) },
            'Send test',
            h('span', { class: 'visually-hidden' }, ` notification to ${target.name}`),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () =>
                confirmDelete(`Delete the target "${target.name}"?`, () => remove(`/api/alerts/targets/${target.id}`)),
            },
            'Delete',
            h('span', { class: 'visually-hidden' }, ` target ${target.name}`),
          ),
        ),
      ),
    )
  }

  function deliveryRow(d: Delivery): HTMLElement {
    return h(
      'tr',
      null,
      h('td', null, formatDateTime(d.created_at)),
      h('td', null, d.target_name ?? '—'),
      h('td', null, d.title),
      h('td', { 'data-testid': 'delivery-state' }, d.state),
      h('td', null, String(d.attempts)),
      h('td', null, d.last_status === null ? '—' : String(d.last_status)),
      h('td', null, d.last_error ?? ''),
    )
  }

  async function load(): Promise<void> {
    try {
      const [rules, targets, deliveries] = await Promise.all([
        api<{ rules: Rule[] }>('GET', '/api/alerts/rules'),
        api<{ targets: Target[] }>('GET', '/api/alerts/targets'),
        api<{ deliveries: Delivery[] }>('GET', '/api/alerts/deliveries?limit=20'),
      ])
      if (stopped) return
      replace(
        rulesHolder,
        table('Alert rules', ['Rule', 'State', 'Changed', 'Actions'], rules.rules.map(ruleRow), 'No rules yet.', 'rules'),
      )
      replace(
        targetsHolder,
        table(
          'Webhook targets',
          ['Name', 'Format', 'URL', 'Actions'],
          targets.targets.map(targetRow),
          'No targets yet.',
          'targets',
        ),
      )
      replace(
        deliveriesHolder,
        table(
          'Recent deliveries',
          ['Time', 'Target', 'Notification', 'State', 'Attempts', 'HTTP status', 'Error'],
          deliveries.deliveries.map(deliveryRow),
          'Nothing sent yet.',
          'deliveries',
        ),
      )
    } catch (error) {
      if (failed(error)) say(describeError(error), false)
    }
  }

  async function change(path: string, body: object): Promise<void> {
    try {
      await api('PUT', path, body)
      say('Saved.')
    } catch (error) {
      if (failed(error)) say(describeError(error), false)
    }
    await load()
  }

  async function remove(path: string): Promise<void> {
    try {
      await api('DELETE', path)
      say('Deleted.')
    } catch (error) {
      if (failed(error)) say(describeError(error), false)
    }
    await load()
  }

  async function sendTest(target: Target): Promise<void> {
    say(`Sending a test notification to ${target.name}…`)
    try {
      const result = await api<{ ok: boolean; status: number | null; error: string | null }>(
        'POST',
        `/api/alerts/targets/${target.id}/test`,
      )
      if (stopped) return
      if (result.ok) say(`Test notification to ${target.name} delivered (HTTP ${result.status}).`)
      else say(`Test notification to ${target.name} failed: ${result.error ?? `HTTP ${result.status}`}.`, false)
    } catch (error) {
      if (failed(error)) say(describeError(error), false)
    }
    await load()
  }

  // Add rule: the threshold field follows the chosen kind.
  const kindSelect = h(
    'select',
    { id: 'rule-kind', name: 'kind' },
    KINDS.map((k) => h('option', { value: k.kind }, k.label)),
  )
  const thresholdInput = h('input', {
    id: 'rule-threshold',
    name: 'threshold',
    inputmode: 'decimal',
    autocomplete: 'off',
    'aria-describedby': 'rule-threshold-unit',
  })
  const unitHint = h('span', { id: 'rule-threshold-unit' })
  const syncUnit = () => {
    const kind = KINDS.find((k) => k.kind === kindSelect.value)!
    thresholdInput.disabled = kind.unit === null
    if (kind.unit === null) thresholdInput.value = ''
    replace(unitHint, kind.unit ? `in ${kind.unit}` : 'not used by this rule')
  }
  kindSelect.addEventListener('change', syncUnit)
  const ruleForm = h(
    'form',
    {
      class: 'inline-form',
      novalidate: true,
      'aria-label': 'Add a rule',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault()
        replace(ruleError, '')
        const raw = thresholdInput.value.trim()
        const threshold = thresholdInput.disabled ? null : raw === '' ? null : Number(raw)
        try {
          await api('POST', '/api/alerts/rules', { kind: kindSelect.value, threshold })
          thresholdInput.value = ''
          say('Rule added.')
          await load()
        } catch (error) {
          if (failed(error)) {
            replace(ruleError, describeError(error))
            thresholdInput.focus()
          }
        }
      },
    },
    field('rule-kind', 'Rule', kindSelect),
    field('rule-threshold', 'N', thresholdInput, unitHint),
    h('div', { class: 'buttons' }, h('button', { type: 'submit', 'data-testid': 'add-rule' }, 'Add rule')),
  )
  syncUnit()

  const nameInput = h('input', { id: 'target-name', name: 'name', autocomplete: 'off', maxlength: '100' })
  const formatSelect = h(
    'select',
    { id: 'target-format', name: 'format' },
    FORMATS.map(([v, l]) => h('option', { value: v }, l)),
  )
  // The URL is a secret: typed like a password and never shown again.
  const urlInput = h('input', { id: 'target-url', name: 'url', type: 'password', autocomplete: 'off', spellcheck: 'false' })
  const targetForm = h(
    'form',
    {
      class: 'inline-form',
      novalidate: true,
      'aria-label': 'Add a webhook target',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault()
        replace(targetError, '')
        try {
          await api('POST', '/api/alerts/targets', {
            name: nameInput.value.trim(),
            format: formatSelect.value,
            url: urlInput.value.trim(),
          })
          nameInput.value = ''
          urlInput.value = ''
          say('Target added.')
          await load()
        } catch (error) {
          if (failed(error)) replace(targetError, describeError(error))
        }
      },
    },
    field('target-name', 'Name', nameInput),
    field('target-format', 'Format', formatSelect),
    field('target-url', 'Webhook URL', urlInput, 'http(s) only; stored encrypted, never shown again'),
    h('div', { class: 'buttons' }, h('button', { type: 'submit', 'data-testid': 'add-target' }, 'Add target')),
  )

  replace(
    view,
    h('div', { class: 'screen-head' }, h('h1', { id: 'screen-title' }, 'Alerts')),
    status,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'rules-title' },
      h('h2', { id: 'rules-title' }, 'Rules'),
      h(
        'p',
        { class: 'hint' },
        'Checked on every sampler round; each rule notifies once when it fires and once when it resolves.',
      ),
      rulesHolder,
      ruleForm,
      ruleError,
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'targets-title' },
      h('h2', { id: 'targets-title' }, 'Webhook targets'),
      targetsHolder,
      targetForm,
      targetError,
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'deliveries-title' },
      h('h2', { id: 'deliveries-title' }, 'Recent deliveries'),
      deliveriesHolder,
    ),
    dialog,
  )
  void load()
  const timer = setInterval(() => {
    if (!document.hidden) void load()
  }, REFRESH_MS)
  return () => {
    stopped = true
    clearInterval(timer)
    if (dialog.open) dialog.close()
  }
}
