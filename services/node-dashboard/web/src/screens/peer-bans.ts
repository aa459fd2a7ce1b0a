import { ApiError, api, describeError } from '../api.ts'
import { h, nextId, replace } from '../dom.ts'
import { formatDateTime, formatDuration } from '../format.ts'
import type { confirmDialog } from './confirm.ts'

interface Ban {
  address: string
  ban_created: string
  banned_until: string
  time_remaining_seconds: number
}

const DURATIONS: [string, number][] = [
  ['1 hour', 3600],
  ['1 day', 86_400],
  ['1 week', 7 * 86_400],
  ['30 days', 30 * 86_400],
  ['1 year', 365 * 86_400],
]

interface BanOptions {
  confirm: ReturnType<typeof confirmDialog>
  /** Says what happened in the screen's status line. */
  announce(text: string): void
}

/** The ban form and the list of bans of the peers screen. */
export function mountBans({ confirm, announce }: BanOptions) {
  let stopped = false
  const addressId = nextId('ban-address')
  const durationId = nextId('ban-duration')
  const hintId = nextId('ban-hint')
  const address = h('input', {
    id: addressId,
    name: 'address',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: '64',
    required: true,
    'aria-describedby': hintId,
  })
  const duration = h(
    'select',
    { id: durationId, name: 'duration' },
    DURATIONS.map(([label, seconds]) => h('option', { value: String(seconds), selected: seconds === 86_400 }, label)),
  )
  const error = h('p', { role: 'alert', class: 'error', 'data-testid': 'bans-error' })
  const list = h('div', { class: 'table-wrap' })
  const clear = h(
    'button',
    { type: 'button', class: 'danger', 'data-testid': 'clear-bans', onclick: () => void clearAll() },
    'Clear all bans',
  )

  const fail = (e: unknown) => {
    if (!(e instanceof ApiError && e.status === 401)) replace(error, describeError(e))
  }

  async function change(question: string, label: string, path: string, body: unknown, done: string): Promise<void> {
    if (!(await confirm.ask(question, label))) return
    replace(error)
    try {
      await api('POST', path, body)
      announce(done)
      api_.onChange?.()
    } catch (e) {
      fail(e)
    }
    await load()
  }

  async function ban(event: Event): Promise<void> {
    event.preventDefault()
    const target = address.value.trim()
    if (!target) {
      replace(error, 'Enter an IP address or subnet to ban.')
      address.focus()
      return
    }
    const label = duration.selectedOptions[0]?.textContent ?? ''
    await change(
      `Ban ${target} for ${label}? The node disconnects every peer at that address and refuses it until the ban ends.`,
      'Ban',
      '/api/peers/bans',
      { address: target, duration_seconds: Number(duration.value) },
      `${target} is banned for ${label}.`,
    )
  }

  const unban = (b: Ban) =>
    change(
      `Lift the ban on ${b.address}?`,
      'Unban',
      '/api/peers/bans/remove',
      { address: b.address },
      `The ban on ${b.address} is lifted.`,
    )

  const clearAll = () =>
    change(
      'Lift every ban? Every banned address may connect again.',
      'Clear all bans',
      '/api/peers/bans/clear',
      undefined,
      'All bans are lifted.',
    )

  async function load(): Promise<void> {
    try {
      const answer = await api<{ bans: Ban[]; truncated: boolean; limit: number }>('GET', '/api/peers/bans')
      if (stopped) return
      clear.disabled = answer.bans.length === 0
      replace(
        list,
        answer.bans.length === 0
          ? h('p', { class: 'muted', 'data-testid': 'no-bans' }, 'No addresses are banned.')
          : h(
              'table',
              { class: 'data', 'data-testid': 'bans-table' },
              h('caption', null, 'Banned addresses and subnets'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Address', 'Banned since', 'Banned until', 'Remaining', 'Actions'].map((t) => h('th', { scope: 'col' }, t)),
                ),
              ),
              h(
                'tbody',
                null,
                answer.bans.map((b) =>
                  h(
                    'tr',
                    { 'data-ban': b.address },
                    h('td', null, h('code', null, b.address)),
                    h('td', null, formatDateTime(b.ban_created)),
                    h('td', null, formatDateTime(b.banned_until)),
                    h('td', null, formatDuration(b.time_remaining_seconds)),
                    h(
                      'td',
                      null,
                      h(
                        'button',
                        {
                          type: 'button',
                          class: 'secondary small',
                          'aria-label': `Unban ${b.address}`,
                          onclick: () => void unban(b),
                        },
                        'Unban',
                      ),
                    ),
                  ),
                ),
              ),
            ),
        answer.truncated ? h('p', { class: 'muted' }, `Only the first ${answer.limit} bans are listed.`) : null,
      )
    } catch (e) {
      if (!stopped) fail(e)
    }
  }

  const element = h(
    'section',
    { class: 'card', 'aria-labelledby': 'bans-title' },
    h('h2', { id: 'bans-title' }, 'Bans'),
    h(
      'form',
      { class: 'ban-form', onsubmit: (e: Event) => void ban(e), 'aria-label': 'Ban an address' },
      h('div', { class: 'field' }, h('label', { for: addressId }, 'Address or subnet'), address),
      h('div', { class: 'field' }, h('label', { for: durationId }, 'Ban for'), duration),
      h('button', { type: 'submit', class: 'danger' }, 'Ban'),
    ),
    h(
      'p',
      { id: hintId, class: 'muted' },
      'An IPv4 or IPv6 address (203.0.113.7), or a subnet with its prefix (198.51.100.0/24).',
    ),
    error,
    list,
    h('div', { class: 'buttons' }, clear),
  )

  const api_ = {
    element,
    load,
    onChange: null as (() => void) | null,
    /** Fills the form with a peer's address and moves the focus there. */
    prefill(host: string) {
      address.value = host
      address.focus()
    },
    stop() {
      stopped = true
    },
  }
  return api_
}
