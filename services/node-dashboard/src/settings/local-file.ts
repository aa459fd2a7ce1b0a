import { constants } from 'node:fs'
import { open, stat } from 'node:fs/promises'

/** Why a file named in the settings was refused; `message` is the reason shown to the user. */
export class FileRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FileRefusedError'
  }
}

const notRegular = () => new FileRefusedError('not a regular file')

/**
 * Reads a small file named in the settings (a private key, the node's RPC cookie): a regular file of at
 * most `maxBytes`. A device (/dev/zero never ends) or a FIFO (blocks until a writer comes) is refused
 * before any read; the open is non-blocking and the type is checked again on the open descriptor, so a
 * path swapped in between is caught too. File-system errors keep their code (ENOENT, EACCES, ...).
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  if (!(await stat(path)).isFile()) throw notRegular()
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0))
  try {
    if (!(await handle.stat()).isFile()) throw notRegular()
    // One byte over the cap tells "exactly the cap" from "larger".
    const buffer = Buffer.alloc(maxBytes + 1)
    let length = 0
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null)
      if (bytesRead === 0) break
      length += bytesRead
    }
    if (length > maxBytes) throw new FileRefusedError(`larger than ${maxBytes} bytes`)
    return buffer.subarray(0, length)
  } finally {
    await handle.close()
  }
}
