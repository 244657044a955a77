/** Base64 (standard alphabet, padded) without `btoa`'s string round trip, which is slow on Node 20. */
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/** The base64 text of `bytes`. */
export const base64 = (bytes: Uint8Array): string => {
  let text = ""
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2]
    text += BASE64[v >> 18] + BASE64[(v >> 12) & 63] + BASE64[(v >> 6) & 63] + BASE64[v & 63]
  }
  if (i + 1 === bytes.length) {
    const v = bytes[i] << 16
    text += `${BASE64[v >> 18]}${BASE64[(v >> 12) & 63]}==`
  } else if (i + 2 === bytes.length) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8)
    text += `${BASE64[v >> 18]}${BASE64[(v >> 12) & 63]}${BASE64[(v >> 6) & 63]}=`
  }
  return text
}
