/**
 * The alerts use cases: rule and target changes (each in one transaction with its audit row), the
 * evaluation of a sampler round, and the test notification. Routes and the sampler call only these.
 */
import { type Database, HttpError, type Queryable } from '@app/common'
import type { Static } from '@sinclair/typebox'
import { createAuditRepository } from '../audit/repository.ts'
import type { SecretBox } from '../settings/crypto.ts'
import { SECRET_MASK } from '../settings/schemas.ts'
import { attemptText, type DeliveryPolicy } from './dispatcher.ts'
import { type Notification, webhookBody } from './formats.ts'
import { createAlertsRepository, type DeliveryRow, type RuleRow, type TargetRow } from './repository.ts'
import { describeRule, judge, nextNodeState, type Observation, THRESHOLDS, thresholdProblem } from './rules.ts'
import {
  type DeliveryView,
  MAX_RULES,
  MAX_TARGETS,
  type RuleBody,
  type RuleUpdateBody,
  type RuleView,
  type TargetBody,
  type TargetUpdateBody,
  type TargetView,
  type TestResult,
} from './schemas.ts'
import { postWebhook } from './webhook.ts'

/** Deliveries waiting at most; past it new ones are recorded as dropped (a target down for days must not grow the table). */
export const MAX_PENDING = 500
/** Test notifications one instance sends at once; each holds its request for up to the webhook timeout. */
export const MAX_TESTS_IN_FLIGHT = 4

export interface AlertsDeps {
  db: Database
  box: SecretBox
  policy: DeliveryPolicy
  /** Called after a round queued deliveries, so they go out without waiting for the next tick. */
  queued: () => void
}

const invalid = (field: string, message: string) => new HttpError(422, `Invalid body field '${field}': ${message}`)
const notFound = (what: string, id: number) => new HttpError(404, `No alert ${what} with id ${id}.`)
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

function ruleView(r: RuleRow): Static<typeof RuleView> {
  return {
    id: r.id,
    kind: r.kind,
    threshold: r.threshold,
    unit: THRESHOLDS[r.kind]?.unit ?? null,
    description: describeRule(r.kind, r.threshold),
    enabled: r.enabled,
    firing: r.firing,
    detail: r.detail,
    changed_at: iso(r.changed_at),
    created_at: iso(r.created_at)!,
  }
}

function targetView(t: TargetRow): Static<typeof TargetView> {
  return {
    id: t.id,
    name: t.name,
    format: t.format,
    url: SECRET_MASK,
    url_hint: t.url_hint,
    enabled: t.enabled,
    created_at: iso(t.created_at)!,
  }
}

function deliveryView(d: DeliveryRow): Static<typeof DeliveryView> {
  return {
    id: d.id,
    target_id: d.target_id,
    target_name: d.target_name,
    rule_id: d.rule_id,
    event: d.event,
    title: d.notification.title,
    message: d.notification.message,
    state: d.state,
    attempts: d.attempts,
    last_status: d.last_status,
    last_error: d.last_error,
    created_at: iso(d.created_at)!,
    next_attempt_at: d.state === 'pending' ? iso(d.next_attempt_at) : null,
    finished_at: iso(d.finished_at),
  }
}

/** The URL checked (http or https with a host) and the part that may be shown: scheme://host[:port]. */
function checkedUrl(value: string): { url: string; hint: string } {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw invalid('url', 'must be an http:// or https:// URL')
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw invalid('url', 'must be an http:// or https:// URL')
  }
  // A space or control character would be sent as something else than what the operator typed.
  if ([...value].some((ch) => ch.charCodeAt(0) <= 0x20 || ch.charCodeAt(0) === 0x7f))
    throw invalid('url', 'must not contain spaces or control characters')
  return { url: value, hint: `${url.protocol}//${url.host}` }
}

function notification(rule: RuleRow, firing: boolean, detail: string, at: Date): Notification {
  const description = describeRule(rule.kind, rule.threshold)
  return {
    event: firing ? 'fired' : 'resolved',
    rule: { id: rule.id, kind: rule.kind, threshold: rule.threshold, description },
    title: `${firing ? 'FIRING' : 'RESOLVED'}: ${description}`,
    message: `${detail} (rule ${rule.id}, ${at.toISOString()})`,
    at: at.toISOString(),
  }
}

export function createAlertsService(deps: AlertsDeps) {
  const { db } = deps
  const repo = createAlertsRepository(db)
  let testsInFlight = 0
  /** One change and its audit row, committed together. */
  const change = <T>(username: string | null, name: string, work: (tx: Queryable) => Promise<{ result: T; outcome: string }>) =>
    db.transaction(async (tx) => {
      const { result, outcome } = await work(tx)
      await createAuditRepository(tx).record({ username, kind: 'alert', name, ok: true, outcome })
      return result
    })

  /** One attempt, no retry: the operator sees at once what the target answered. */
  async function sendTest(username: string | null, id: number): Promise<Static<typeof TestResult>> {
    const target = await repo.target(id)
    if (!target) throw notFound('target', id)
    const url = deps.box.decrypt(target.url_enc)
    if (url === null) throw new HttpError(409, 'The stored URL cannot be decrypted (SESSION_SECRET changed): enter it again.')
    const n: Notification = {
      event: 'test',
      rule: null,
      title: 'Test notification',
      message: `A test notification from the node dashboard to "${target.name}".`,
      at: new Date().toISOString(),
    }
    const result = await postWebhook(url, webhookBody(target.format, n), deps.policy)
    return db.transaction(async (tx) => {
      const r = createAlertsRepository(tx)
      const deliveryId = await r.insertDelivery(target.id, n)
      await r.recordAttempt(deliveryId, {
        state: result.ok ? 'delivered' : 'failed',
        status: result.status,
        error: result.error,
      })
      await createAuditRepository(tx).record({
        username,
        kind: 'alert',
        name: 'webhook-test',
        ok: result.ok,
        outcome: `delivery ${deliveryId} (test) to target ${id} (${target.format}): attempt 1/1, ${attemptText(result)}`,
      })
      return {
        ok: result.ok,
        status: result.status,
        error: result.error,
        duration_ms: result.durationMs,
        delivery_id: deliveryId,
      }
    })
  }

  return {
    async rules() {
      return (await repo.rules()).map(ruleView)
    },

    createRule(username: string | null, body: Static<typeof RuleBody>) {
      const threshold = body.threshold ?? null
      const problem = thresholdProblem(body.kind, threshold)
      if (problem) throw invalid('threshold', problem)
      return change(username, 'create-rule', async (tx) => {
        const r = createAlertsRepository(tx)
        if ((await r.countRules()) >= MAX_RULES) throw new HttpError(409, `At most ${MAX_RULES} alert rules; delete one first.`)
        const rule = await r.insertRule(body.kind, threshold, body.enabled ?? true)
        return { result: ruleView(rule), outcome: `rule ${rule.id}: ${describeRule(rule.kind, rule.threshold)}` }
      })
    },

    updateRule(username: string | null, id: number, body: Static<typeof RuleUpdateBody>) {
      return change(username, 'update-rule', async (tx) => {
        const r = createAlertsRepository(tx)
        const current = await r.rule(id, true)
        if (!current) throw notFound('rule', id)
        const threshold = body.threshold === undefined ? current.threshold : body.threshold
        const problem = thresholdProblem(current.kind, threshold)
        if (problem) throw invalid('threshold', problem)
        const rule = (await r.updateRule(id, threshold, body.enabled ?? current.enabled))!
        return {
          result: ruleView(rule),
          outcome: `rule ${id}: ${describeRule(rule.kind, rule.threshold)}, ${rule.enabled ? 'enabled' : 'disabled'}`,
        }
      })
    },

    deleteRule(username: string | null, id: number) {
      return change(username, 'delete-rule', async (tx) => {
        if (!(await createAlertsRepository(tx).deleteRule(id))) throw notFound('rule', id)
        return { result: undefined, outcome: `rule ${id}` }
      })
    },

    async targets() {
      return (await repo.targets()).map(targetView)
    },

    createTarget(username: string | null, body: Static<typeof TargetBody>) {
      const { url, hint } = checkedUrl(body.url)
      return change(username, 'create-target', async (tx) => {
        const r = createAlertsRepository(tx)
        if ((await r.countTargets()) >= MAX_TARGETS)
          throw new HttpError(409, `At most ${MAX_TARGETS} webhook targets; delete one first.`)
        const target = await r.insertTarget({
          name: body.name,
          format: body.format,
          url_enc: deps.box.encrypt(url),
          url_hint: hint,
          enabled: body.enabled ?? true,
        })
        return { result: targetView(target), outcome: `target ${target.id} (${target.format})` }
      })
    },

    updateTarget(username: string | null, id: number, body: Static<typeof TargetUpdateBody>) {
      const replaced = body.url !== undefined && body.url !== SECRET_MASK ? checkedUrl(body.url) : null
      return change(username, 'update-target', async (tx) => {
        const r = createAlertsRepository(tx)
        const current = await r.target(id)
        if (!current) throw notFound('target', id)
        const target = (await r.updateTarget(id, {
          name: body.name ?? current.name,
          format: body.format ?? current.format,
          url_enc: replaced ? deps.box.encrypt(replaced.url) : current.url_enc,
          url_hint: replaced ? replaced.hint : current.url_hint,
          enabled: body.enabled ?? current.enabled,
        }))!
        return { result: targetView(target), outcome: `target ${id} (${target.format})${replaced ? ', new URL' : ''}` }
      })
    },

    deleteTarget(username: string | null, id: number) {
      return change(username, 'delete-target', async (tx) => {
        if (!(await createAlertsRepository(tx).deleteTarget(id))) throw notFound('target', id)
        return { result: undefined, outcome: `target ${id}` }
      })
    },

    /** One attempt, no retry: the operator sees at once what the target answered. */
    async testTarget(username: string | null, id: number): Promise<Static<typeof TestResult>> {
      if (testsInFlight >= MAX_TESTS_IN_FLIGHT) {
        const wait = Math.ceil(deps.policy.timeoutMs / 1000)
        throw new HttpError(429, `${MAX_TESTS_IN_FLIGHT} test notifications are on their way; try again shortly.`, {
          'Retry-After': wait,
        })
      }
      testsInFlight += 1
      try {
        return await sendTest(username, id)
      } finally {
        testsInFlight -= 1
      }
    },

    async deliveries(limit: number) {
      return (await repo.recentDeliveries(limit)).map(deliveryView)
    },

    /**
     * Applies one sampler round: updates the node state, flips the rules whose condition changed and
     * queues one delivery per notification and enabled target, all in one transaction that holds the
     * node-state row, so two instances never evaluate at once and an older round never overrides a newer.
     * Resolves to the number of deliveries queued.
     */
    async evaluate(o: Observation): Promise<number> {
      const queued = await db.transaction(async (tx) => {
        const r = createAlertsRepository(tx)
        const audit = createAuditRepository(tx)
        const state = await r.lockNodeState()
        if (state.lastRoundAt && state.lastRoundAt.getTime() >= o.at.getTime()) return 0
        const next = nextNodeState(state, o)
        await r.saveNodeState(next)
        const notifications: Notification[] = []
        for (const rule of await r.rules()) {
          if (!rule.enabled) continue
          const verdict = judge(rule.kind, rule.threshold, next, o)
          if (verdict.holds === null || verdict.holds === rule.firing) continue
          await r.setRuleState(rule.id, verdict.holds, verdict.detail, o.at)
          const n = notification(rule, verdict.holds, verdict.detail, o.at)
          notifications.push(n)
          await audit.record({ username: null, kind: 'alert', name: n.event, ok: true, outcome: `${n.title}: ${verdict.detail}` })
        }
        if (notifications.length === 0) return 0
        const targets = (await r.targets()).filter((t) => t.enabled)
        let pending = await r.pendingCount()
        let count = 0
        for (const n of notifications) {
          for (const target of targets) {
            if (pending >= MAX_PENDING) {
              const id = await r.insertDelivery(target.id, n, 'dropped', `queue full (${MAX_PENDING} deliveries waiting)`)
              await audit.record({
                username: null,
                kind: 'alert',
                name: 'webhook',
                ok: false,
                outcome: `delivery ${id} (${n.event}) to target ${target.id}: dropped, ${MAX_PENDING} deliveries waiting`,
              })
              continue
            }
            await r.insertDelivery(target.id, n)
            pending += 1
            count += 1
          }
        }
        return count
      })
      if (queued > 0) deps.queued()
      return queued
    },
  }
}

export type AlertsService = ReturnType<typeof createAlertsService>
