import { ApiError, api, describeError } from '../api.ts'
import { h, replace } from '../dom.ts'
import { formatTime } from '../format.ts'

/** "45 s" or "13 min 41 s". */
function formatWait(seconds: number): string {
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

interface LoginOptions {
  /** Why the user is here again (session expired, logged out). */
  notice: string | null
  onLoggedIn(username: string): void
}

export function mountLogin(root: HTMLElement, { notice, onLoggedIn }: LoginOptions): () => void {
  let countdown: ReturnType<typeof setInterval> | undefined
  const username = h('input', { id: 'login-username', name: 'username', autocomplete: 'username', required: true })
  const password = h('input', {
    id: 'login-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  })
  const submit = h('button', { type: 'submit' }, 'Log in')
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'login-error' })
  const info = h('p', { class: 'notice', role: 'status', 'data-testid': 'login-notice' }, notice ?? '')
  info.hidden = !notice
  error.hidden = true

  function showError(message: string): void {
    error.hidden = false
    replace(error, message)
  }

  // Too many attempts: keep the button off and count down the Retry-After the API gave.
  function lockOut(seconds: number): void {
    const until = Date.now() + seconds * 1000
    submit.disabled = true
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000)
      if (left <= 0) {
        clearInterval(countdown)
        submit.disabled = false
        showError('You can try again now.')
        return
      }
      showError(`Too many failed attempts. Try again in ${formatWait(left)} (at ${formatTime(until)}).`)
    }
    tick()
    countdown = setInterval(tick, 1000)
  }

  const form = h(
    'form',
    {
      class: 'card login',
      'aria-labelledby': 'screen-title',
      novalidate: true,
      async onsubmit(event: SubmitEvent) {
        event.preventDefault()
        if (!username.value.trim() || !password.value) {
          showError('Enter both the username and the password.')
          return
        }
        submit.disabled = true
        error.hidden = true
        try {
          const result = await api<{ username: string }>('POST', '/api/auth/login', {
            username: username.value.trim(),
            password: password.value,
          })
          password.value = ''
          onLoggedIn(result?.username ?? username.value.trim())
        } catch (err) {
          submit.disabled = false
          password.value = ''
          if (err instanceof ApiError && err.status === 401) showError('Wrong username or password.')
          else if (err instanceof ApiError && err.status === 429) lockOut(err.retryAfter ?? 60)
          else showError(describeError(err))
          password.focus()
        }
      },
    },
    h('h1', { id: 'screen-title' }, 'Node dashboard'),
    info,
    h('label', { for: 'login-username' }, 'Username'),
    username,
    h('label', { for: 'login-password' }, 'Password'),
    password,
    error,
    submit,
  )
  replace(root, h('main', { id: 'view', class: 'login-page' }, form))
  document.title = 'Log in · Node dashboard'
  username.focus()
  return () => clearInterval(countdown)
}
