import { readCappedText } from '@app/common'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import sharp from 'sharp'
import { MAX_CAPTION_LENGTH } from '../../memes/schemas.ts'
import { clampCaption, keepCatalogTags } from './text.ts'
import { type Captioner, CaptionerError } from './types.ts'

export interface OpenAiCaptionerOptions {
  /** Base URL of the API, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  url: string
  apiKey?: string
  model: string
  timeoutMs: number
}

// Only what we read of a chat completion; other fields are allowed and ignored.
const ChatCompletion = Type.Object({
  choices: Type.Array(Type.Object({ message: Type.Object({ content: Type.Union([Type.String(), Type.Null()]) }) }), {
    minItems: 1,
  }),
})

const CaptionAnswer = Type.Object({
  caption: Type.String(),
  tags: Type.Optional(Type.Array(Type.Unknown())),
})

// A caption answer is a few KB; anything far bigger is a broken or hostile server.
export const MAX_RESPONSE_BYTES = 1024 * 1024
// Vision models see ~1024 px anyway; sending less keeps requests small.
const IMAGE_EDGE = 1024

// The prompt names at most this many catalog tags (alphabetical order), so a big catalog cannot blow up the request.
export const MAX_PROMPT_TAGS = 500

export function instructions(catalog: string[]): string {
  const offered = catalog.slice(0, MAX_PROMPT_TAGS)
  return [
    'You caption memes for a search index.',
    'Answer with one JSON object and nothing else: {"caption": string, "tags": string[]}.',
    `caption: the text written in the image, then a short plain description of the picture; at most ${MAX_CAPTION_LENGTH} characters.`,
    offered.length > 0
      ? `tags: zero or more names chosen only from this list, exactly as written: ${JSON.stringify(offered)}.`
      : 'tags: an empty array (there is no tag catalog yet).',
  ].join('\n')
}

const FENCE = '```'

/**
 * Models often wrap JSON in a Markdown fence even when asked not to: ```json ... ``` becomes what is
 * inside. Plain string work (no regular expression), so a huge hostile answer costs one pass.
 */
export function unfence(content: string): string {
  const text = content.trim()
  if (text.length < 2 * FENCE.length || !text.startsWith(FENCE) || !text.endsWith(FENCE)) return text
  const inside = text.slice(FENCE.length, -FENCE.length)
  return (inside.slice(0, 4).toLowerCase() === 'json' ? inside.slice(4) : inside).trim()
}

/** The chat completions endpoint under a base URL given with or without trailing slashes. */
export function chatCompletionsUrl(base: string): string {
  let end = base.length
  while (end > 0 && base[end - 1] === '/') end--
  return `${base.slice(0, end)}/chat/completions`
}

/** Any OpenAI-compatible chat completions endpoint with image input (OpenAI, Ollama, vLLM...). */
export function createOpenAiCaptioner(options: OpenAiCaptionerOptions): Captioner {
  const endpoint = chatCompletionsUrl(options.url)
  return {
    name: 'openai',
    async caption({ image, catalog, aliases = [], signal }) {
      const small = await sharp(image)
        .resize({ width: IMAGE_EDGE, height: IMAGE_EDGE, fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer()
      const body = {
        model: options.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: instructions(catalog) },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Caption this meme and choose its tags.' },
              { type: 'image_url', image_url: { url: `data:image/webp;base64,${small.toString('base64')}` } },
            ],
          },
        ],
      }
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`
      let response: Response
      let text: string
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
          redirect: 'error',
        })
        const capped = await readCappedText(response, MAX_RESPONSE_BYTES)
        if (capped === null) throw new CaptionerError(`captioner answer is larger than ${MAX_RESPONSE_BYTES} bytes`)
        text = capped
      } catch (error) {
        if (error instanceof CaptionerError) throw error
        const e = error as Error
        if (e.name === 'TimeoutError') throw new CaptionerError(`captioner did not answer within ${options.timeoutMs} ms`)
        if (e.name === 'AbortError') throw new CaptionerError('captioner call aborted')
        // The message of a network failure names the host at most, never the key.
        throw new CaptionerError(`captioner unreachable: ${(e.cause as Error | undefined)?.message ?? e.message}`)
      }
      if (!response.ok) throw new CaptionerError(`captioner answered HTTP ${response.status}`)
      let completion: unknown
      try {
        completion = JSON.parse(text)
      } catch {
        throw new CaptionerError('captioner answer is not JSON')
      }
      if (!Value.Check(ChatCompletion, completion)) throw new CaptionerError('captioner answer is not a chat completion')
      const content = completion.choices[0].message.content ?? ''
      let answer: unknown
      try {
        answer = JSON.parse(unfence(content))
      } catch {
        throw new CaptionerError('captioner message is not a JSON object')
      }
      if (!Value.Check(CaptionAnswer, answer)) throw new CaptionerError('captioner message lacks a string "caption"')
      // A vision model says what the text is, not where: no word boxes.
      const tags = keepCatalogTags(answer.tags ?? [], [...catalog, ...aliases])
      return { caption: clampCaption(answer.caption), tags, words: null }
    },
    async close() {},
  }
}
