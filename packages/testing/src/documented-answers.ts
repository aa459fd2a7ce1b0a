/** The part of an OpenAPI document that lists each operation's statuses. */
export interface OpenApiPaths {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>
}

/** A call a test made, by its OpenAPI operation, and the status it got. */
export interface AnsweredCall {
  operation: readonly [method: string, path: string]
  status: number
}

/** "GET /api/x 503" for every status an OpenAPI document does not list for the operation that answered it. */
export function undocumentedAnswers(doc: OpenApiPaths, calls: readonly AnsweredCall[]): string[] {
  const missing = calls.filter(({ operation: [method, path], status }) => !doc.paths[path]?.[method]?.responses?.[String(status)])
  return [...new Set(missing.map(({ operation: [method, path], status }) => `${method.toUpperCase()} ${path} ${status}`))]
}
