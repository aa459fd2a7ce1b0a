import type { Config } from '../../config.ts'
import { createOcrCaptioner } from './ocr.ts'
import { createOpenAiCaptioner } from './openai.ts'
import type { Captioner } from './types.ts'

export type { Captioner, CaptionInput, CaptionResult } from './types.ts'

/** The provider CAPTIONER names; throws at start-up when its settings are incomplete. */
export function createCaptioner(config: Config): Captioner {
  switch (config.CAPTIONER) {
    case 'openai':
      if (!config.CAPTIONER_URL) throw new Error('CAPTIONER=openai needs CAPTIONER_URL (an OpenAI-compatible base URL)')
      return createOpenAiCaptioner({
        url: config.CAPTIONER_URL,
        apiKey: config.CAPTIONER_API_KEY,
        model: config.CAPTIONER_MODEL,
        timeoutMs: config.CAPTIONER_TIMEOUT_MS,
      })
    case 'none':
      return { name: 'none', caption: async () => null, close: async () => {} }
    default:
      return createOcrCaptioner({ idleMs: config.OCR_IDLE_SECONDS * 1000 })
  }
}
