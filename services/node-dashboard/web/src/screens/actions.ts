import { ApiError, api, describeError } from '../api.ts'
import { type Child, h, replace, rows } from '../dom.ts'
import { formatDateTime } from '../format.ts'
import type { ScreenContext } from '../main.ts'
import { pick } from '../pick.ts'

type Action = 'stop' | 'start' | 'restart' | 'start-reindex'

const descriptions: Record<Action, string> = {
  stop: 'Stop the node through its RPC "stop" call.',
  start: 'Start the node over SSH with the configured binary and config file.',
  restart: 'Stop the node, wait for it to exit, then start it again over SSH.',
  'start-reindex':
    'Start the node with -reindex: it rebuilds its block index and chainstate from the block files, which takes hours on mainnet.',
}

const STATE_TEXT: Record<string, string> = {
  running: 'Running',
  warming_up: 'Warming up',
  stopping: 'Stopping',
  stopped: 'Stopped',
  unreachable: 'Unreachable',
  unknown: 'Unknown',
}

interface Phase {
  phase: string
  at: string
  message?: string
}

function phaseList(phases: unknown): HTMLElement | null {
  if (!Array.isArray(phases) || phases.length === 0) return null
  return h(
    'ol',
    { class: 'phases', 'data-testid': 'phases' },
    (phases as Phase[]).map((p) =>
      h(
        'li',
        { 'data-phase': p.phase },
        h('strong', null, p.phase.replace('_', ' ')),
        ` ${formatDateTime(p.at)}`,
        p.message ? ` — ${p.message}` : '',
      ),
    ),
  )
}

// The last result survives moving between screens, so the operator can come back to it.
let lastResult: { action: Action; body: Record<string, unknown> | null; error: string | null } | null = null

let inflight: { action: Action; done: Promise<void> } | null = null

async function execute(action: Action): Promise<void> {
  try {
    const payload = action === 'start-reindex' ? { confirm: true } : undefined
    const body = await api<Record<string, unknown>>('POST', `/api/actions/${action}`, payload)
    lastResult = { action, body, error: null }
  } catch (error) {
    // A 401 already took the user back to the login screen.
    if (!(error instanceof ApiError && error.status === 401))
      lastResult = { action, body: error instanceof ApiError ? error.body : null, error: describeError(error) }
  } finally {
    inflight = null
  }
}

function pre(label: string, text: unknown, testid: string): Child {
  const value = typeof text === 'string' ? text : text === undefined || text === null ? '' : JSON.stringify(text)
  return h(
    'div',
    null,
    h('h3', null, label),
    h('pre', { class: 'output', 'data-testid': testid, tabindex: '0' }, value || '(empty)'),
  )
}

function debugLogView(log: unknown, onReindex: () => void): Child {
  if (!log || typeof log !== 'object') return null
  const { path, lines, truncated, reindex_suggested } = log as {
    path: string
    lines: string[]
    truncated: boolean
    reindex_suggested: boolean
  }
  return h(
    'div',
    null,
    h('h3', null, `debug.log (${path})${truncated ? ', last lines' : ''}`),
    h('pre', { class: 'output', 'data-testid': 'debug-log', tabindex: '0' }, lines.join('\n') || '(empty)'),
    reindex_suggested
      ? h(
          'p',
          null,
          'The log asks for a restart with -reindex. ',
          h(
            'button',
            { type: 'button', class: 'danger', 'data-action': 'start-reindex', onclick: onReindex },
            'Start with -reindex',
          ),
        )
      : null,
  )
}

function resultView(result: NonNullable<typeof lastResult>, onReindex: () => void): HTMLElement {
  const body = result.body ?? {}
  const remote = pick(body, 'remote', 'ssh', 'payload')
  const src = remote && typeof remote === 'object' ? remote : body
  const ok = pick(body, 'ok')
  const hasRemote = pick(src, 'exit_code', 'stdout', 'stderr', 'command') !== undefined
  return h(
    'section',
    {
      class: `card result ${ok === true && !result.error ? 'result-ok' : 'result-failed'}`,
      'data-testid': 'action-result',
      'data-ok': String(ok === true && !result.error),
      'aria-labelledby': 'action-result-title',
    },
    h('h2', { id: 'action-result-title' }, `${result.action}: ${ok === true && !result.error ? 'succeeded' : 'failed'}`),
    result.error ? h('p', { class: 'error' }, result.error) : null,
    rows([
      ['Started', formatDateTime(pick(body, 'started_at'))],
      ['Finished', formatDateTime(pick(body, 'finished_at'))],
      ...(hasRemote
        ? ([
            ['Command', h('code', null, String(pick(src, 'command') ?? '—'))],
            ['Exit code', h('span', { 'data-testid': 'exit-code' }, String(pick(src, 'exit_code') ?? '—'))],
            ['Duration', `${pick(src, 'duration_ms') ?? '—'} ms`],
          ] as [string, Child][])
        : []),
    ]),
    pick(body, 'rpc.result', 'result', 'message') !== undefined
      ? pre('Node reply', pick(body, 'rpc.result', 'result', 'message'), 'rpc-reply')
      : null,
    phaseList(pick(body, 'phases')) ? h('h3', null, 'Phases') : null,
    phaseList(pick(body, 'phases')),
    hasRemote ? pre('stdout', pick(src, 'stdout'), 'stdout') : null,
    hasRemote ? pre('stderr', pick(src, 'stderr'), 'stderr') : null,
    debugLogView(pick(body, 'debug_log'), onReindex),
  )
}

export function mountActions(view: HTMLElement, ctx: ScreenContext): () => void {
  let stopped = false
  const status = h('p', { role: 'status', 'data-testid': 'action-status', class: 'muted' }, 'No action running.')
  const resultHolder = h('div', { 'aria-live': 'polite' })
  const confirmText = h('p', { id: 'confirm-text' })
  const confirmButton = h('button', { type: 'button', class: 'danger', 'data-testid': 'confirm' }, 'Confirm')
  const dialog = h(
    'dialog',
    { 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-text' },
    h('h2', { id: 'confirm-title' }, 'Are you sure?'),
    confirmText,
    h(
      'div',
      { class: 'buttons' },
      confirmButton,
      // The Cancel button comes first in focus order only through autofocus: Enter must not stop a node by accident.
      h('button', { type: 'button', class: 'secondary', autofocus: true, onclick: () => dialog.close() }, 'Cancel'),
    ),
  )
  let pending: Action | null = null
  const ask = (action: Action) => {
    pending = action
    replace(confirmText, `${descriptions[action]} Continue?`)
    replace(confirmButton, action === 'start-reindex' ? 'Start with -reindex' : action[0].toUpperCase() + action.slice(1))
    dialog.showModal()
  }
  const nodeState = h('p', { 'data-testid': 'lifecycle-state', 'data-state': 'unknown' }, 'Node state: …')
  const livePhases = h('div', { 'aria-live': 'polite', 'data-testid': 'live-phases' })
  let polling: ReturnType<typeof setTimeout> | null = null
  // While an action runs, its phases come from the node state route (the POST answers only at the end).
  async function refreshState(): Promise<void> {
    polling = null
    try {
      const state = await api<{ state: string; message: string | null; action: { phases: Phase[] } | null }>(
        'GET',
        '/api/node/state',
      )
      if (stopped) return
      nodeState.setAttribute('data-state', state.state)
      replace(nodeState, `Node state: ${STATE_TEXT[state.state] ?? state.state}${state.message ? ` — ${state.message}` : ''}`)
      replace(livePhases, inflight ? phaseList(state.action?.phases) : null)
    } catch {
      if (stopped) return
      replace(nodeState, 'Node state: could not be read')
    }
    if (inflight && !stopped) polling = setTimeout(() => void refreshState(), 1000)
  }
  confirmButton.addEventListener('click', () => {
    dialog.close()
    if (pending) run(pending)
  })

  const buttons = (['stop', 'start', 'restart'] as Action[]).map((action) =>
    h(
      'button',
      {
        type: 'button',
        class: action === 'start' ? '' : 'danger',
        'data-action': action,
        onclick: () => ask(action),
      },
      action[0].toUpperCase() + action.slice(1),
    ),
  )

  function setRunning(action: Action | null): void {
    for (const b of buttons) b.disabled = action !== null
    resultHolder.querySelectorAll('button').forEach((b) => {
      b.disabled = action !== null
    })
    view.setAttribute('aria-busy', String(action !== null))
    replace(status, action ? `Running ${action}… this can take a while.` : 'No action running.')
  }

  function showResult(): void {
    if (lastResult)
      replace(
        resultHolder,
        resultView(lastResult, () => ask('start-reindex')),
        overviewLink(),
      )
  }

  // Follows the action in flight, also one started before the user left and came back to this screen.
  function watch(): void {
    if (!inflight) return
    setRunning(inflight.action)
    if (polling === null) void refreshState()
    void inflight.done.then(() => {
      if (stopped) return
      setRunning(null)
      replace(livePhases)
      showResult()
      void refreshState()
    })
  }

  function run(action: Action): void {
    if (inflight) return
    inflight = { action, done: execute(action) }
    watch()
  }

  function overviewLink(): HTMLElement {
    return h('p', null, h('a', { href: '#/overview', onclick: () => ctx.navigate('overview') }, 'Watch the node on the overview'))
  }

  replace(
    view,
    h('div', { class: 'screen-head' }, h('h1', { id: 'screen-title' }, 'Actions')),
    h(
      'section',
      { class: 'card', 'aria-label': 'Node control' },
      h(
        'ul',
        { class: 'plain' },
        (['stop', 'start', 'restart'] as Action[]).map((a) => h('li', null, h('strong', null, a), ` — ${descriptions[a]}`)),
      ),
      h('div', { class: 'buttons' }, buttons),
      status,
      nodeState,
      livePhases,
    ),
    resultHolder,
    dialog,
  )
  showResult()
  watch()
  if (!inflight) void refreshState()
  return () => {
    stopped = true
    if (polling !== null) clearTimeout(polling)
    if (dialog.open) dialog.close()
  }
}

/** Logout forgets the last result: the next user of this browser must not see it. */
export function clearActionResult(): void {
  lastResult = null
}
