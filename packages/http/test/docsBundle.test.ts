/**
 * The docs page's renderer over a real Node server: under the hashed URL the page names, it is
 * answered gzip or brotli as `Accept-Encoding` asks (the decompressed bytes are the bundle and
 * its start line), identity otherwise, with `Vary: Accept-Encoding`, a year's `immutable`
 * caching and an ETag that answers 304.
 */
import { createHash } from "node:crypto"
import { createServer, get, type IncomingHttpHeaders, type Server } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import { listen } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import * as DocsPage from "../src/DocsPage.js"
import { Pixgate } from "../src/node.js"
import * as Bundle from "../src/ScalarBundle.js"

type Raw = { status: number; headers: IncomingHttpHeaders; bytes: Buffer }

// node:http, not fetch: fetch would decompress the body and send its own Accept-Encoding.
const raw = (url: string, headers: Record<string, string>): Promise<Raw> =>
  new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) })
      )
      res.on("error", reject)
    }).on("error", reject)
  })

describe("the docs renderer's bundle", () => {
  let pixgate: Awaited<ReturnType<typeof Pixgate.make>>
  let server: Server
  let base: string
  let url: string
  beforeAll(async () => {
    pixgate = await Pixgate.make({ store: MemoryStore.layer, log: { level: "none" } })
    server = createServer((req, res) => pixgate.nodeHandler(req, res))
    base = await listen(server)
    const page = await (await fetch(`${base}/api/docs`)).text()
    const src = page.match(/<script src="([^"]+)">/)?.[1]
    expect(src).toBe(`/api/docs/scalar.js?v=${DocsPage.rendererHash}`)
    url = `${base}${src}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    await pixgate.dispose()
  })

  it("is named by a hash of its content", () => {
    expect(DocsPage.rendererHash).toMatch(/^[0-9a-f]{24}$/)
    const sha = createHash("sha256").update(Bundle.source, "utf8").digest("hex")
    expect(DocsPage.rendererHash.slice(0, 16)).toBe(sha.slice(0, 16))
  })

  it("answers brotli, gzip or identity as asked, with the cache and vary headers, and 304 on its ETag", async () => {
    const identity = await raw(url, {})
    expect(identity.status).toBe(200)
    expect(identity.headers["content-encoding"]).toBeUndefined()
    const text = identity.bytes.toString("utf8")
    expect(text.startsWith(Bundle.source)).toBe(true)
    expect(text).toContain("Scalar.createApiReference")
    for (const [asked, encoding, decode] of [
      ["gzip, deflate, br", "br", brotliDecompressSync],
      ["br;q=1.0, gzip;q=0.5", "br", brotliDecompressSync],
      ["gzip", "gzip", gunzipSync],
      ["gzip;q=1, br;q=0", "gzip", gunzipSync]
    ] as const) {
      const answer = await raw(url, { "accept-encoding": asked })
      expect([asked, answer.status, answer.headers["content-encoding"]]).toEqual([asked, 200, encoding])
      expect(answer.bytes.length).toBeLessThan(identity.bytes.length / 3)
      expect(Number(answer.headers["content-length"])).toBe(answer.bytes.length)
      expect(decode(answer.bytes).equals(identity.bytes)).toBe(true)
    }
    for (const asked of ["identity", "deflate", "gzip;q=0, br;q=0"]) {
      const answer = await raw(url, { "accept-encoding": asked })
      expect([asked, answer.headers["content-encoding"]]).toEqual([asked, undefined])
      expect(answer.bytes.equals(identity.bytes)).toBe(true)
    }
    for (const asked of [{}, { "accept-encoding": "gzip" }, { "accept-encoding": "br" }]) {
      const answer = await raw(url, asked)
      expect(answer.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      expect(answer.headers.vary).toBe("Accept-Encoding")
      const etag = answer.headers.etag
      expect(etag).toMatch(new RegExp(`^"scalar-${Bundle.version}-${DocsPage.rendererHash}(-gzip|-br)?"$`))
      const again = await raw(url, { ...asked, "if-none-match": must(etag, "etag") })
      expect([again.status, again.bytes.length, again.headers.etag]).toEqual([304, 0, etag])
      expect(again.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
    }
    // Another version's ETag is not this one.
    const other = await raw(url, { "if-none-match": `"scalar-${Bundle.version}-0000"` })
    expect(other.status).toBe(200)
  })

  it("without its hash, or with another, is revalidated each time", async () => {
    for (const path of ["/api/docs/scalar.js", "/api/docs/scalar.js?v=0123456789abcdef01234567"]) {
      const answer = await raw(`${base}${path}`, { "accept-encoding": "gzip" })
      expect([path, answer.status, answer.headers["cache-control"], answer.headers.vary]).toEqual([
        path,
        200,
        "no-cache",
        "Accept-Encoding"
      ])
    }
  })
})
