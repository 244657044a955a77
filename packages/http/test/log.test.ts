/**
 * Logs: the line buffer behind stdout (order kept; written at the next turn, at 64 KiB, on
 * flush and at process exit), access lines byte for byte as Effect's logger wrote them, and one
 * writer for Effect's logger and the access log, flushed by `dispose()`; secret path segments
 * redacted, an error answer's code on its access line, and a refusal logged as that line only.
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import { Effect, Logger } from "effect"
import * as LineBuffer from "../src/LineBuffer.js"
import { Log, Pixgate } from "../src/node.js"
import * as Redact from "../src/Redact.js"

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe("LineBuffer", () => {
  it("holds lines until the next turn of the event loop, then writes them in one chunk, in order", async () => {
    const chunks: Array<string> = []
    const buffer = LineBuffer.make((chunk) => chunks.push(chunk))
    buffer.write("a")
    buffer.write("b")
    buffer.write("c")
    expect(chunks).toEqual([])
    await nextTurn()
    expect(chunks).toEqual(["a\nb\nc\n"])
    buffer.write("d")
    await nextTurn()
    expect(chunks).toEqual(["a\nb\nc\n", "d\n"])
  })

  it("writes at once on flush, and nothing when it holds nothing", async () => {
    const chunks: Array<string> = []
    const buffer = LineBuffer.make((chunk) => chunks.push(chunk))
    buffer.flush()
    buffer.write("a")
    buffer.flush()
    expect(chunks).toEqual(["a\n"])
    await nextTurn()
    expect(chunks).toEqual(["a\n"])
  })

  it("writes as soon as 64 KiB wait", () => {
    const chunks: Array<string> = []
    const buffer = LineBuffer.make((chunk) => chunks.push(chunk))
    const line = "x".repeat(1023)
    for (let i = 0; i < 63; i++) buffer.write(line)
    expect(chunks).toEqual([])
    buffer.write(line)
    expect(chunks).toHaveLength(1)
    expect(chunks[0]).toHaveLength(LineBuffer.highWaterMark)
  })

  it("writes what it holds when the process exits", () => {
    const module = new URL("../src/LineBuffer.ts", import.meta.url).href
    const script = [
      `import * as LineBuffer from ${JSON.stringify(module)}`,
      "const buffer = LineBuffer.make((chunk) => process.stdout.write(chunk))",
      'buffer.write("first")',
      'buffer.write("second")',
      "process.exit(0)"
    ].join("\n")
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", "--conditions=@pixgate/source", "--input-type=module", "-e", script],
      { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8" }
    )
    expect(out).toBe("first\nsecond\n")
  })
})

describe("access lines", () => {
  it.effect("are byte for byte what Effect's logger wrote for the same fields", () =>
    Effect.gen(function* () {
      for (const path of ["/api/health", '/a"b\\c/é\u0001']) {
        const lines: Array<string> = []
        yield* Effect.logInfo("request").pipe(
          Effect.annotateLogs({ requestId: "abc-123", method: "POST", path, status: 201, durationMs: 12 }),
          Effect.provide(
            Logger.replace(
              Logger.defaultLogger,
              Log.json((line) => lines.push(line))
            )
          )
        )
        // The test clock stands at 0.
        expect(Log.requestLine(0, "POST", path, 201, 12, "abc-123")).toBe(lines[0])
      }
    })
  )
})

describe("access line strings", () => {
  it("quotes paths, methods and ids exactly as JSON.stringify does, escapes and all", () => {
    const texts = [
      "/api/health",
      'a"quote',
      "back\\slash",
      "tab\there",
      "new\nline",
      "\u0000nul",
      "del\u007f",
      "acentuação",
      "lone \ud800 surrogate",
      "emoji 😀",
      ""
    ]
    for (const text of texts) {
      const line = Log.requestLine(0, text, text, 200, 1, text)
      expect(line, text).toBe(
        `{"time":"1970-01-01T00:00:00.000Z","level":"info","msg":"request","durationMs":1,` +
          `"path":${JSON.stringify(text)},"status":200,"requestId":${JSON.stringify(text)},"method":${JSON.stringify(text)}}`
      )
      expect(JSON.parse(line)).toMatchObject({ path: text, method: text, requestId: text })
    }
  })
})

describe("redacted paths and error codes", () => {
  it("replaces the secret segment of bank callbacks and invites, however spelled", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["/bank/callbacks/s3cr3t", "/bank/callbacks/[redacted]"],
      ["/bank/callbacks/s3cr3t/pix", "/bank/callbacks/[redacted]/pix"],
      ["/payments/bank/callbacks/s3cr3t", "/payments/bank/callbacks/[redacted]"],
      ["/bank/Callbacks/s3cr3t", "/bank/Callbacks/[redacted]"],
      ["/bank/%63allbacks/s3cr3t", "/bank/callbacks/[redacted]"],
      ["/panel/invite/Tok3nTok3nTok3nTok3n", "/panel/invite/[redacted]"],
      ["/api/v1/charges", "/api/v1/charges"],
      ["/api/v1/%zz", "/api/v1/%zz"],
      ["/bank/callbacks/", "/bank/callbacks/[redacted]"]
    ]
    for (const [raw, logged] of cases) expect(Redact.path(raw), raw).toBe(logged)
  })

  it("an error answer's access line ends with its code; a success's has none", () => {
    const refused = JSON.parse(Log.requestLine(0, "POST", "/api/v1/charges", 422, 3, "r1", "invalid_amount"))
    expect(refused).toMatchObject({ msg: "request", status: 422, code: "invalid_amount" })
    expect(JSON.parse(Log.requestLine(0, "GET", "/api/health", 200, 1, "r2"))).not.toHaveProperty("code")
    expect(Log.codeOf('{"error":"Unauthorized","code":"unauthorized"}')).toBe("unauthorized")
    expect(Log.codeOf("<html>")).toBeUndefined()
  })

  it("a refusal at debug level is one access line: no unhandled-fiber report, no stack", async () => {
    const lines: Array<string> = []
    const pixgate = await Pixgate.make({
      store: MemoryStore.layer,
      engine: { worker: false },
      log: { level: "debug", write: (line) => lines.push(line) }
    })
    await pixgate.webHandler(new Request("http://x/api/v1/transactions"))
    await pixgate.webHandler(
      new Request("http://x/api/v1/transactions", { headers: { "x-api-key": "sk_test_x" } })
    )
    await pixgate.dispose()
    expect(lines.map((l) => JSON.parse(l)).map((l) => [l.level, l.msg, l.status, l.code])).toEqual([
      ["info", "request", 401, "unauthorized"],
      ["info", "request", 401, "unauthorized"]
    ])
  })
})

describe("one writer for Effect's logger and the access log", () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  it("stdout by default, in batches, in order, flushed by dispose()", async () => {
    const written: Array<string> = []
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk))
      return true
    })
    // The next turn never comes: only dispose() can write the lines out.
    vi.useFakeTimers({ toFake: ["setImmediate", "clearImmediate"] })
    const pixgate = await Pixgate.make({
      store: MemoryStore.layer,
      engine: { worker: false },
      admin: { token: "short-token" }
    })
    await pixgate.webHandler(new Request("http://x/api/health"))
    await pixgate.webHandler(new Request("http://x/api/v1/transactions"))
    await pixgate.webHandler(new Request("http://x/nothing"))
    expect(written).toEqual([])
    await pixgate.dispose()
    expect(written).toHaveLength(1)
    const lines = written[0]
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
    expect(lines.map((l) => [l.level, l.msg, l.path, l.status])).toEqual([
      ["warn", "The admin token is shorter than 16 characters; use a long random one", undefined, undefined],
      ["info", "request", "/api/health", 200],
      ["info", "request", "/api/v1/transactions", 401],
      ["info", "request", "/nothing", 404]
    ])
  })

  it("a given write is called once per line, at once", async () => {
    const lines: Array<string> = []
    const pixgate = await Pixgate.make({
      store: MemoryStore.layer,
      log: { write: (line) => lines.push(line) }
    })
    await pixgate.webHandler(new Request("http://x/api/health"))
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0])).toMatchObject({ msg: "request", status: 200 })
    await pixgate.dispose()
  })

  it("level none silences it, warning silences request lines", async () => {
    for (const level of ["none", "warning"] as const) {
      const lines: Array<string> = []
      const pixgate = await Pixgate.make({
        store: MemoryStore.layer,
        admin: { token: "short-token" },
        log: { level, write: (line) => lines.push(line) }
      })
      await pixgate.webHandler(new Request("http://x/api/health"))
      expect(lines.map((l) => JSON.parse(l).level)).toEqual(level === "none" ? [] : ["warn"])
      await pixgate.dispose()
    }
  })
})
