import { rateLimitClient, retryAfterHeader, tooManyRequests, unauthorized, withHeaders } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../config.ts'
import { described, errorAnswer, errorResponse } from '../schemas.ts'
import { loginTurns } from './login-turns.ts'
import { SESSION_COOKIE, sessionCookieHeader, sessionUser } from './plugin.ts'
import { AuthState, LoginBody, LoginResult } from './schemas.ts'

export const authRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  const blocks = fastify.loginBlocks
  const turns = loginTurns(fastify.leases, fastify.log)
  const failureRule = {
    bucket: 'login-failures',
    max: config.LOGIN_MAX_FAILURES,
    windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
  }

  fastify.post(
    '/api/auth/login',
    {
      schema: {
        operationId: 'login',
        summary: 'Log in and start a session',
        tags: ['auth'],
        body: LoginBody,
        response: {
          200: withHeaders(described(LoginResult, 'Logged in: a new session and its cookie.'), sessionCookieHeader),
          ...errorResponse(403, 422, 429),
          401: errorAnswer('Wrong username or password.'),
          429: withHeaders(
            errorAnswer('Too many failed logins from this address; retry after the Retry-After header (seconds).'),
            retryAfterHeader,
          ),
        },
      },
    },
    async (request) => {
      // The client the budget counts: an IPv6 address by its /64, so one network cannot spread guesses over 2^64.
      const client = rateLimitClient(request.ip)
      const refuseIfBlocked = async () => {
        const wait = await blocks.secondsLeft(client)
        if (wait > 0) throw tooManyRequests(`Too many failed logins; retry in ${wait} seconds.`, wait)
      }
      // A blocked client is refused before it waits for a turn.
      await refuseIfBlocked()
      const { username, password } = request.body
      // Only failures are counted (the limiter never has to give an attempt back): the check, the
      // password check and the count run as one step per IP, so no guess starts before the previous one is counted.
      await turns.run(client, async () => {
        await refuseIfBlocked()
        if (await fastify.credentials.verify(username, password)) return
        const { allowed, state, retryAfterSeconds } = await fastify.rateLimiter.consume(failureRule, client)
        if (state.remaining === 0) await blocks.block(client, new Date(state.resetAt))
        if (!allowed) throw tooManyRequests(`Too many failed logins; retry in ${retryAfterSeconds} seconds.`, retryAfterSeconds)
        request.log.info({ ip: request.ip }, 'failed login')
        throw unauthorized('Invalid username or password.')
      })
      // A fresh session id at login: a planted cookie cannot be fixed onto the new session.
      await request.session.regenerate()
      request.session.set('username', fastify.credentials.username)
      return { authenticated: true as const, username: fastify.credentials.username }
    },
  )

  fastify.post(
    '/api/auth/logout',
    {
      config: { auth: true },
      schema: {
        operationId: 'logout',
        summary: 'Log out and destroy the session',
        tags: ['auth'],
        response: {
          200: withHeaders(
            described(AuthState, 'Logged out: the session is destroyed and its cookie cleared.'),
            sessionCookieHeader,
          ),
          ...errorResponse(401, 403),
        },
      },
    },
    async (request, reply) => {
      await request.session.destroy()
      reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: config.SESSION_COOKIE_SECURE })
      return { authenticated: false, username: null }
    },
  )

  fastify.get(
    '/api/auth/me',
    {
      schema: {
        operationId: 'getAuthState',
        summary: 'Current authentication state',
        tags: ['auth'],
        response: { 200: described(AuthState, 'Whether this request carries a logged-in session, and its user.') },
      },
    },
    async (request) => {
      const username = sessionUser(request)
      return { authenticated: username !== null, username }
    },
  )
}
