import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const PREFIX = 'v1:'

export interface SecretBox {
  encrypt(plain: string): string
  /** null when the ciphertext was made with another key or is damaged. */
  decrypt(box: string): string | null
}

/** AES-256-GCM with a key derived (HKDF-SHA256) from the session secret; '' stays ''. */
export function secretBox(secret: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', secret, 'node-dashboard', 'node-settings-secrets-v1', 32))
  return {
    encrypt(plain) {
      if (plain === '') return ''
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
    },
    decrypt(box) {
      if (box === '') return ''
      if (!box.startsWith(PREFIX)) return null
      try {
        const raw = Buffer.from(box.slice(PREFIX.length), 'base64')
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
        decipher.setAuthTag(raw.subarray(12, 28))
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
      } catch {
        return null
      }
    },
  }
}
