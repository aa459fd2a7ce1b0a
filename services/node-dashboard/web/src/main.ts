import './styles/base.css'
import './styles/screens.css'
import { api, setSessionLostHandler } from './api.ts'
import { h, replace } from './dom.ts'
import { clearActionResult, mountActions } from './screens/actions.ts'
import { mountAlerts } from './screens/alerts.ts'
import { mountBlocks } from './screens/blocks.ts'
import { mountCharts } from './screens/charts.ts'
import { mountLogin } from './screens/login.ts'
import { mountNodeConfig } from './screens/node-config.ts'
import { mountOverview } from './screens/overview.ts'
import { mountPeers } from './screens/peers.ts'
import { clearRpcHistory, mountRpc } from './screens/rpc.ts'
import { mountSettings } from './screens/settings.ts'

/** What every screen gets; a screen returns a cleanup that stops its timers and requests. */
export interface ScreenContext {
  username: string
  navigate(route: string): void
}
type Screen = (view: HTMLElement, ctx: ScreenContext) => (() => void) | undefined

const screens: { route: string; label: string; mount: Screen }[] = [
  { route: 'overview', label: 'Overview', mount: mountOverview },
  { route: 'charts', label: 'Charts', mount: mountCharts },
  { route: 'peers', label: 'Peers', mount: mountPeers },
  { route: 'blocks', label: 'Blocks', mount: mountBlocks },
  { route: 'rpc', label: 'RPC explorer', mount: mountRpc },
  { route: 'settings', label: 'Settings', mount: mountSettings },
  { route: 'actions', label: 'Actions', mount: mountActions },
  { route: 'alerts', label: 'Alerts', mount: mountAlerts },
  { route: 'node-config', label: 'Node config', mount: mountNodeConfig },
]

const root = document.getElementById('app')!
let username: string | null = null
let cleanup: (() => void) | undefined
let loginNotice: string | null = null

function currentRoute(): string {
  const route = location.hash.replace(/^#\/?/, '')
  return screens.some((s) => s.route === route) ? route : 'overview'
}

function navigate(route: string): void {
  if (location.hash !== `#/${route}`) location.hash = `#/${route}`
  else render()
}

function stopScreen(): void {
  cleanup?.()
  cleanup = undefined
}

function showLogin(): void {
  stopScreen()
  clearRpcHistory()
  clearActionResult()
  const notice = loginNotice
  loginNotice = null
  cleanup = mountLogin(root, {
    notice,
    onLoggedIn(name) {
      username = name
      render()
    },
  })
}

function render(): void {
  if (!username) {
    showLogin()
    return
  }
  stopScreen()
  const route = currentRoute()
  const screen = screens.find((s) => s.route === route)!
  const view = h('main', { id: 'view', tabindex: '-1', 'aria-labelledby': 'screen-title' })
  const nav = h(
    'nav',
    { 'aria-label': 'Main' },
    h(
      'ul',
      null,
      screens.map((s) =>
        h('li', null, h('a', { href: `#/${s.route}`, 'aria-current': s.route === route ? 'page' : null }, s.label)),
      ),
    ),
  )
  const header = h(
    'header',
    { class: 'topbar' },
    h('span', { class: 'brand' }, 'Node dashboard'),
    nav,
    h(
      'div',
      { class: 'user' },
      h('span', { class: 'muted', 'data-testid': 'username' }, username),
      h('button', { type: 'button', class: 'secondary', 'data-testid': 'logout', onclick: logout }, 'Log out'),
    ),
  )
  const demoBanner = h('p', { class: 'demo-banner', role: 'status', 'data-testid': 'demo-banner', hidden: true })
  replace(root, header, demoBanner, view)
  void showDemoBanner(demoBanner)
  document.title = `${screen.label} · Node dashboard`
  cleanup = screen.mount(view, { username, navigate })
  view.focus({ preventScroll: true })
}

/** Says so, on every screen, while the dashboard watches the demo node it runs itself instead of a real one. */
async function showDemoBanner(banner: HTMLElement): Promise<void> {
  let demo = false
  try {
    demo = (await api<{ demo_node?: boolean }>('GET', '/api/settings')).demo_node === true
  } catch {
    // The screen itself reports an unreachable server or a lost session.
  }
  if (!demo || !banner.isConnected) return
  replace(
    banner,
    h('strong', null, 'Demo node. '),
    'This is a simulated Bitcoin node running inside the dashboard, not a real one. Save your node in ',
    h('a', { href: '#/settings' }, 'Settings'),
    ' to watch it instead.',
  )
  banner.hidden = false
}

async function logout(): Promise<void> {
  try {
    await api('POST', '/api/auth/logout')
  } catch {
    // Already logged out (401) or the server is gone: either way the screen returns to the login form.
  }
  username = null
  loginNotice = 'You have been logged out.'
  showLogin()
}

// Any 401 on a protected call: the 8-hour session expired (or was cleared elsewhere).
setSessionLostHandler(() => {
  if (!username) return
  username = null
  loginNotice = 'Your session has expired. Please log in again.'
  showLogin()
})

window.addEventListener('hashchange', () => {
  if (username) render()
})

async function boot(): Promise<void> {
  try {
    const me = await api<{ authenticated: boolean; username: string | null }>('GET', '/api/auth/me')
    username = me.authenticated ? me.username : null
  } catch {
    username = null
  }
  render()
}

void boot()
