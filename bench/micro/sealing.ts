/**
 * What sealing one field at rest costs (docs/performance.md, "Sealing personal data"): the SQL
 * store's `Vault` (a salt's key serving many values, an IV from a pool, base64url), beside the
 * steps of a value sealed with a salt of its own (28 random bytes, HMAC-SHA256 for the value's
 * key, AES-256-GCM with the column as associated data, base64url: how values were sealed before
 * 2026-12-03), and opening them, over node:crypto (`NodeDataCipher`, what the stores use); beside
 * them one AES-256-GCM through Web Crypto, which is asynchronous (a promise per field), awaited
 * one at a time as a row mapper would. A short field (a name) and an event's JSON (273 bytes).
 *
 *   pnpm exec tsx --conditions=@pixgate/source bench/micro/sealing.ts [--n=200000]
 */
import { NodeDataCipher } from "@pixgate/core/node"
import { Encoding } from "effect"
import { Vault } from "../../packages/store-sql/src/internal/vault.js"

const args = process.argv.slice(2)
const total = Number(args.find((a) => a.startsWith("--n="))?.split("=")[1] ?? 200_000)
const cipher = NodeDataCipher.cipher
const dataKey = new Uint8Array(cipher.random(32))
const lookupKey = cipher.random(32)
const encoder = new TextEncoder()
const decoder = new TextDecoder()
const aad = encoder.encode("transactions.client_name")
const name = "Maria da Silva Souza Santos"
const event = JSON.stringify({
  id: "tx_01JXYZ0000000000000000000",
  type: "payout",
  status: "completed",
  amount: 12345,
  fee: 100,
  pixKey: "maria@example.com",
  createdAt: "2026-12-03T10:00:00.000Z",
  updatedAt: "2026-12-03T10:00:03.000Z",
  endToEndId: "E12345678202612031000abcdefghijk",
  description: null
})
const vault = new Vault(cipher, new Map([["dk_bench", dataKey]]), "dk_bench", lookupKey)

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

for (const [label, text] of [
  ["name", name],
  ["event", event]
] as const) {
  const sealed = seal(text)
  const vaulted = vault.seal("transactions.client_name", text)
  time(`${label}: seal, a salt per value (before)`, total, () => seal(text))
  time(`${label}: seal, Vault`, total, () => vault.seal("transactions.client_name", text))
  time(`${label}: open, a salt per value (before)`, total, () => open(sealed))
  time(`${label}: open, Vault`, total, () => vault.open("transactions.client_name", vaulted))
}
time("lookup hash (HMAC-SHA256 + base64url)", total, () => vault.lookup("52998224725"))

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
