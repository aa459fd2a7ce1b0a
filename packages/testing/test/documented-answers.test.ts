import { test } from 'tap'
import { undocumentedAnswers } from '../src/documented-answers.ts'

test('undocumentedAnswers names each operation and status the document does not list, once', async (t) => {
  const doc = { paths: { '/api/x': { get: { responses: { 200: {}, 503: {} } } } } }
  const get = ['get', '/api/x'] as const
  t.same(
    undocumentedAnswers(doc, [
      { operation: get, status: 200 },
      { operation: get, status: 503 },
      { operation: get, status: 500 },
      { operation: get, status: 500 },
      { operation: ['post', '/api/x'], status: 200 },
    ]),
    ['GET /api/x 500', 'POST /api/x 200'],
  )
})
