import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One chat completions request as the test server received it. */
export interface ChatRequest {
  path: string
  authorization: string | undefined
  body: {
    model?: string
    response_format?: unknown
    messages?: { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] }[]
  }
  /** The data URL of the image the client sent, if any. */
  imageUrl: string | undefined
}

export interface ChatReply {
  status?: number
  /** A raw body; otherwise `content` is wrapped in a chat completion. */
  raw?: string
  content?: string
  /** Never answer (the client's timeout or shutdown must cut the call). */
  hang?: boolean
}

export type ChatHandler = (request: ChatRequest) => ChatReply | Promise<ChatReply>

/** A chat completion with one assistant message, as OpenAI, Ollama and vLLM send it. */
export function chatCompletion(content: string, model = 'test-model'): string {
  return JSON.stringify({
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  })
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * A local HTTP server speaking the OpenAI chat completions protocol (POST {base}/chat/completions).
 * Replies come from `handler`; every request is recorded. Closed at teardown.
 */
export async function startChatServer(t: { teardown(fn: () => unknown): void }, handler: ChatHandler) {
  const requests: ChatRequest[] = []
  const hanging = new Set<ServerResponse>()
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}')
      return
    }
    const text = await readBody(req)
    let body: ChatRequest['body']
    try {
      body = JSON.parse(text)
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}')
      return
    }
    let imageUrl: string | undefined
    for (const message of body.messages ?? []) {
      if (typeof message.content === 'string') continue
      for (const part of message.content) if (part.type === 'image_url') imageUrl = part.image_url?.url
    }
    const request: ChatRequest = { path: req.url, authorization: req.headers.authorization, body, imageUrl }
    requests.push(request)
    const reply = await handler(request)
    if (reply.hang) {
      hanging.add(res)
      res.on('close', () => hanging.delete(res))
      return
    }
    res
      .writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
      .end(reply.raw ?? chatCompletion(reply.content ?? '{}'))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  t.teardown(async () => {
    for (const res of hanging) res.destroy()
    server.closeAllConnections()
    server.close()
  })
  return { url: `http://127.0.0.1:${port}/v1`, requests }
}
