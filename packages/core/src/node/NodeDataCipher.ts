/** `DataCipherShape` over node:crypto: OpenSSL's AES-256-GCM (AES-NI where the CPU has it) and HMAC. */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import type { DataCipherShape } from "../ports/DataCipher.js"

const tagLength = 16

/** AES-256-GCM and HMAC-SHA256 through node:crypto. */
export const cipher: DataCipherShape = {
  random: (size) => randomBytes(size),
  hmac: (key, data) => createHmac("sha256", key).update(data).digest(),
  seal: (key, iv, aad, plaintext) => {
    const c = createCipheriv("aes-256-gcm", key, iv, { authTagLength: tagLength })
    c.setAAD(aad)
    return Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()])
  },
  open: (key, iv, aad, sealed) => {
    if (sealed.length < tagLength) throw new Error("Sealed value too short")
    const d = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: tagLength })
    d.setAAD(aad)
    d.setAuthTag(sealed.subarray(sealed.length - tagLength))
    return Buffer.concat([d.update(sealed.subarray(0, sealed.length - tagLength)), d.final()])
  }
}
