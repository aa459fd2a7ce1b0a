import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { sessionUser } from '../auth/plugin.ts'
import { described, errorAnswer, errorResponse } from '../schemas.ts'
import {
  DELIVERIES_DEFAULT,
  DeliveriesQuery,
  DeliveryList,
  IdParams,
  MAX_RULES,
  MAX_TARGETS,
  RuleBody,
  RuleList,
  RuleUpdateBody,
  RuleView,
  TargetBody,
  TargetList,
  TargetUpdateBody,
  TargetView,
  TestResult,
} from './schemas.ts'
import { MAX_TESTS_IN_FLIGHT } from './service.ts'

const tags = ['alerts']
const deleted = described(Type.Null(), 'Deleted.')
const ruleMissing = errorAnswer('No rule with this id.')
const targetMissing = errorAnswer('No target with this id.')

/** Alert rules, webhook targets, deliveries. Thin: every change goes through fastify.alerts (service.ts). */
export const alertRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const alerts = fastify.alerts

  fastify.get(
    '/api/alerts/rules',
    {
      config: { auth: true },
      schema: {
        operationId: 'listAlertRules',
        summary: 'Alert rules with their state',
        tags,
        response: { 200: described(RuleList, 'Every rule, oldest first.'), ...errorResponse(401) },
      },
    },
    async () => ({ rules: await alerts.rules() }),
  )

  fastify.post(
    '/api/alerts/rules',
    {
      config: { auth: true },
      schema: {
        operationId: 'createAlertRule',
        summary: 'Add an alert rule',
        description:
          'The rule is evaluated on the next sampler round: it fires once when its condition holds and resolves once when ' +
          'it stops holding. 422 names a threshold out of its kind’s range.',
        tags,
        body: RuleBody,
        response: {
          201: described(RuleView, 'Added.'),
          ...errorResponse(401, 403, 422),
          409: errorAnswer(`There are ${MAX_RULES} rules already.`),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await alerts.createRule(sessionUser(request), request.body)),
  )

  fastify.put(
    '/api/alerts/rules/:id',
    {
      config: { auth: true },
      schema: {
        operationId: 'updateAlertRule',
        summary: 'Change a rule’s threshold or switch it on or off',
        description:
          'A disabled rule forgets its state silently (no resolved notification); enabled again it starts from not firing.',
        tags,
        params: IdParams,
        body: RuleUpdateBody,
        response: { 200: described(RuleView, 'Changed.'), ...errorResponse(401, 403, 422), 404: ruleMissing },
      },
    },
    async (request) => alerts.updateRule(sessionUser(request), request.params.id, request.body),
  )

  fastify.delete(
    '/api/alerts/rules/:id',
    {
      config: { auth: true },
      schema: {
        operationId: 'deleteAlertRule',
        summary: 'Delete a rule',
        tags,
        params: IdParams,
        response: { 204: deleted, ...errorResponse(401, 403, 422), 404: ruleMissing },
      },
    },
    async (request, reply) => {
      await alerts.deleteRule(sessionUser(request), request.params.id)
      return reply.code(204).send(null)
    },
  )

  fastify.get(
    '/api/alerts/targets',
    {
      config: { auth: true },
      schema: {
        operationId: 'listAlertTargets',
        summary: 'Webhook targets (URLs masked)',
        tags,
        response: { 200: described(TargetList, 'Every target, oldest first; the URL is never shown.'), ...errorResponse(401) },
      },
    },
    async () => ({ targets: await alerts.targets() }),
  )

  fastify.post(
    '/api/alerts/targets',
    {
      config: { auth: true },
      schema: {
        operationId: 'createAlertTarget',
        summary: 'Add a webhook target',
        description: 'The URL (http or https only) is stored encrypted and never shown again; answers mask it.',
        tags,
        body: TargetBody,
        response: {
          201: described(TargetView, 'Added (URL masked).'),
          ...errorResponse(401, 403, 422),
          409: errorAnswer(`There are ${MAX_TARGETS} targets already.`),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await alerts.createTarget(sessionUser(request), request.body)),
  )

  fastify.put(
    '/api/alerts/targets/:id',
    {
      config: { auth: true },
      schema: {
        operationId: 'updateAlertTarget',
        summary: 'Change a webhook target; absent fields and a masked URL keep their stored value',
        tags,
        params: IdParams,
        body: TargetUpdateBody,
        response: { 200: described(TargetView, 'Changed (URL masked).'), ...errorResponse(401, 403, 422), 404: targetMissing },
      },
    },
    async (request) => alerts.updateTarget(sessionUser(request), request.params.id, request.body),
  )

  fastify.delete(
    '/api/alerts/targets/:id',
    {
      config: { auth: true },
      schema: {
        operationId: 'deleteAlertTarget',
        summary: 'Delete a webhook target and its deliveries',
        tags,
        params: IdParams,
        response: { 204: deleted, ...errorResponse(401, 403, 422), 404: targetMissing },
      },
    },
    async (request, reply) => {
      await alerts.deleteTarget(sessionUser(request), request.params.id)
      return reply.code(204).send(null)
    },
  )

  fastify.post(
    '/api/alerts/targets/:id/test',
    {
      config: { auth: true },
      schema: {
        operationId: 'testAlertTarget',
        summary: 'Send a test notification to a target now',
        description:
          'One attempt, no retry, bounded by ALERT_WEBHOOK_CONNECT_TIMEOUT_MS and ALERT_WEBHOOK_TIMEOUT_MS; recorded as a ' +
          'delivery and audited. 200 whatever the target answered: ok, status and error say how it went. 429 while ' +
          `${MAX_TESTS_IN_FLIGHT} test notifications are already under way on this instance.`,
        tags,
        params: IdParams,
        response: {
          200: described(TestResult, 'What the target answered.'),
          ...errorResponse(401, 403, 422, 429),
          404: targetMissing,
          409: errorAnswer('The stored URL cannot be decrypted (SESSION_SECRET changed): enter it again.'),
        },
      },
    },
    async (request) => alerts.testTarget(sessionUser(request), request.params.id),
  )

  fastify.get(
    '/api/alerts/deliveries',
    {
      config: { auth: true },
      schema: {
        operationId: 'listAlertDeliveries',
        summary: 'Recent notification deliveries, newest first',
        tags,
        querystring: DeliveriesQuery,
        response: { 200: described(DeliveryList, 'The newest deliveries with their outcome.'), ...errorResponse(401, 422) },
      },
    },
    async (request) => ({ deliveries: await alerts.deliveries(request.query.limit ?? DELIVERIES_DEFAULT) }),
  )
}
