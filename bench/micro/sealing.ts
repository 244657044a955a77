/**
 * What sealing one field at rest costs (docs/performance.md, "Sealing personal data"): the SQL
 * store's steps for a value (28 random bytes, HMAC-SHA256 for the value's own key, AES-256-GCM
 * with the column as associated data, base64url), and opening it again, over node:crypto
 * (`NodeDataCipher`, what the stores use); beside them one AES-256-GCM through Web Crypto, which
 * is asynchronous (a promise per field), awaited one at a time as a row mapper would.
 *
 *   pnpm exec tsx --conditions=@pixgate/source bench/micro/sealing.ts [--n=200000]
 */
import { NodeDataCipher } from "@pixgate/core/node"
import { Encoding } from "effect"

const args = process.argv.slice(2)
const total = Number(args.find((a) => a.startsWith("--n="))?.split("=")[1] ?? 200_000)
const cipher = NodeDataCipher.cipher
const dataKey = new Uint8Array(cipher.random(32))
const lookupKey = cipher.random(32)
const encoder = new TextEncoder()
const decoder = new TextDecoder()
const aad = encoder.encode("transactions.client_name")
const name = "Maria da Silva Souza Santos"

const seal = (text: string): string => {
  const random = cipher.random(28)
  const sealed = cipher.seal(
    cipher.hmac(dataKey, random.subarray(0, 16)),
    random.subarray(16),
    aad,
    encoder.encode(text)
  )
  const out = new Uint8Array(random.length + sealed.length)
  out.set(random)
  out.set(sealed, random.length)
  return Encoding.encodeBase64Url(out)
}

const open = (text: string): string => {
  const all = Encoding.decodeBase64Url(text)
  if (all._tag === "Left") throw new Error("bad base64")
  const b = all.right
  return decoder.decode(
    cipher.open(cipher.hmac(dataKey, b.subarray(0, 16)), b.subarray(16, 28), aad, b.subarray(28))
  )
}

const time = (label: string, n: number, body: () => void) => {
  body()
  const start = process.hrtime.bigint()
  const cpu = process.cpuUsage()
  for (let i = 0; i < n; i++) body()
  const used = process.cpuUsage(cpu)
  const wall = Number(process.hrtime.bigint() - start) / 1e3 / n
  console.log(
    `${label.padEnd(44)} ${wall.toFixed(2)} µs wall, ${((used.user + used.system) / n).toFixed(2)} µs CPU`
  )
}

const sealed = seal(name)
time("seal (node:crypto, sync)", total, () => seal(name))
time("open (node:crypto, sync)", total, () => open(sealed))
time("lookup hash (HMAC-SHA256 + base64url)", total, () =>
  Encoding.encodeBase64Url(cipher.hmac(lookupKey, encoder.encode("52998224725")))
)

const key = await crypto.subtle.importKey("raw", dataKey, "AES-GCM", false, ["encrypt"])
const webStart = process.hrtime.bigint()
const webCpu = process.cpuUsage()
const webTotal = Math.min(total, 50_000)
for (let i = 0; i < webTotal; i++)
  await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: new Uint8Array(cipher.random(12)), additionalData: aad },
    key,
    encoder.encode(name)
  )
const webUsed = process.cpuUsage(webCpu)
console.log(
  `${"AES-GCM alone (Web Crypto, awaited each)".padEnd(44)} ${(Number(process.hrtime.bigint() - webStart) / 1e3 / webTotal).toFixed(2)} µs wall, ${((webUsed.user + webUsed.system) / webTotal).toFixed(2)} µs CPU`
)
