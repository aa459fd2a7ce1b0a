/**
 * Sessions, login credentials, CSRF and the auth guard.
 * For other route authors: add `config: { auth: true }` to a route (401 {"detail"} without a session),
 * or use `preHandler/onRequest: fastify.requireAuth`; `sessionUser(request)` gives the logged-in name.
 * Every POST/PUT/PATCH/DELETE is checked for a foreign Origin/Referer (403) before any route runs.
 */

import { HttpError } from '@app/common'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { type Credentials, loadCredentials } from './credentials.ts'
import { checkSameOrigin } from './csrf.ts'
import { createLoginBlockRepository, type LoginBlockRepository } from './login-blocks.ts'
import { createSessionRepository } from './session-store.ts'

export const SESSION_COOKIE = 'dashboard_session'
const SESSION_MAX_AGE_SECONDS = 8 * 3600

/** The Set-Cookie header of login (the new session) and logout (the cleared one), as documented. */
export const sessionCookieHeader = {
  'Set-Cookie': {
    type: 'string' as const,
    description: `${SESSION_COOKIE}=<id>; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_MAX_AGE_SECONDS} (0 at logout); Secure when SESSION_COOKIE_SECURE is true.`,
  },
}

declare module 'fastify' {
  interface FastifyInstance {
    credentials: Credentials
    /** IPs that spent their failed-login budget (see login-blocks.ts). */
    loginBlocks: LoginBlockRepository
    requireAuth: onRequestHookHandler
  }
  interface FastifyContextConfig {
    /** true: the route needs a logged-in session (401 otherwise). */
    auth?: boolean
  }
  interface Session {
    username?: string
  }
}

/** The logged-in user of this request, or null. */
export function sessionUser(request: FastifyRequest): string | null {
  const name = request.session?.get('username')
  return typeof name === 'string' && name === request.server.credentials.username ? name : null
}

export const authPlugin = fp(
  async function authPlugin(fastify: FastifyInstance, { config, secret }: { config: Config; secret: string }) {
    const credentials = await loadCredentials({
      username: config.DASHBOARD_USERNAME,
      password: config.DASHBOARD_PASSWORD,
      passwordHash: config.DASHBOARD_PASSWORD_HASH,
      db: fastify.db,
      log: { warn: (msg) => fastify.log.warn(msg) },
    })
    fastify.decorate('credentials', credentials)
    fastify.decorate('loginBlocks', createLoginBlockRepository(fastify.db))
    const sessions = createSessionRepository(fastify.db)

    await fastify.register(fastifyCookie)
    await fastify.register(fastifySession, {
      secret,
      cookieName: SESSION_COOKIE,
      store: sessions.store,
      // A session exists only after login, and its cookie expires 8 hours after it was issued.
      saveUninitialized: false,
      rolling: false,
      cookie: {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: config.SESSION_COOKIE_SECURE,
        maxAge: SESSION_MAX_AGE_SECONDS * 1000,
      },
    })
    // @fastify/session writes only Expires; browsers prefer Max-Age, so add it to our cookie.
    fastify.addHook('onSend', async (_request, reply, payload) => {
      const header = reply.getHeader('set-cookie')
      if (header === undefined) return payload
      const cookies = (Array.isArray(header) ? header : [String(header)]).map((cookie) =>
        cookie.startsWith(`${SESSION_COOKIE}=`) && !/;\s*Max-Age=/i.test(cookie)
          ? `${cookie}; Max-Age=${cookie.startsWith(`${SESSION_COOKIE}=;`) ? 0 : SESSION_MAX_AGE_SECONDS}`
          : cookie,
      )
      // reply.header() appends to an existing Set-Cookie: without the removal every cookie went out twice.
      reply.removeHeader('set-cookie')
      reply.header('set-cookie', cookies)
      return payload
    })

    fastify.addHook('onRequest', async (request) => checkSameOrigin(request))

    const requireAuth: onRequestHookHandler = async function requireAuth(request: FastifyRequest, _reply: FastifyReply) {
      if (!sessionUser(request)) throw new HttpError(401, 'Authentication required: log in first.')
    }
    fastify.decorate('requireAuth', requireAuth)
    fastify.addHook('onRoute', (route) => {
      if (route.config?.auth !== true) return
      const existing = route.onRequest
      const list = existing ? (Array.isArray(existing) ? existing : [existing]) : []
      // First in the route's own hooks, so rate limits and validation never run for anonymous callers.
      route.onRequest = [requireAuth, ...list]
    })

    const prune = setInterval(() => {
      sessions.prune().catch((error) => fastify.log.warn({ err: error }, 'session prune failed'))
    }, 3600_000)
    prune.unref()
    fastify.addHook('onClose', async () => clearInterval(prune))
  },
  { name: 'dashboard-auth', dependencies: ['app-database'] },
)
