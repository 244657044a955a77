/**
 * The webhook receiver, as a child process: answers 200 to every POST on `/hook` and records,
 * for each event id's first arrival, the time from the event's `timestamp` (its createdAt) to
 * the arrival. In hold mode it keeps answers back until released, so a backlog can pile up in
 * the sender and then be drained at full speed. Control: `POST /_hold`, `POST /_release`,
 * `POST /_reset`, `GET /_stats`.
 *
 * Run: `node --import tsx bench/lib/receiver-server.ts` with PORT and HOST.
 */
import { createServer, type ServerResponse } from "node:http"
import { Histogram } from "./histogram.js"

let seen = new Set<string>()
let latency = new Histogram()
let arrivals = 0
let duplicates = 0
let answered = 0
let firstAnswerAt = 0
let lastAnswerAt = 0
let releasedAt = 0
let holding = false
let held: Array<ServerResponse> = []
const types: Record<string, number> = {}

const ok = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/plain", "content-length": 2 })
  res.end("ok")
  const now = Date.now()
  answered++
  if (firstAnswerAt === 0) firstAnswerAt = now
  lastAnswerAt = now
}

const json = (res: ServerResponse, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const url = req.url ?? "/"
    if (req.method === "POST" && url.startsWith("/hook")) {
      const arrivedAt = Date.now()
      arrivals++
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          id: string
          event: string
          timestamp: string
        }
        if (seen.has(event.id)) duplicates++
        else {
          seen.add(event.id)
          latency.record(arrivedAt - Date.parse(event.timestamp))
          types[event.event] = (types[event.event] ?? 0) + 1
        }
      } catch {
        // A body that is not an event still gets its 200: the sender is not under test here.
      }
      if (holding) held.push(res)
      else ok(res)
      return
    }
    if (url === "/_hold") {
      holding = true
      return json(res, { holding })
    }
    if (url === "/_release") {
      holding = false
      releasedAt = Date.now()
      const waiting = held
      held = []
      for (const r of waiting) ok(r)
      return json(res, { released: waiting.length, at: releasedAt })
    }
    if (url === "/_reset") {
      seen = new Set()
      latency = new Histogram()
      arrivals = duplicates = answered = firstAnswerAt = lastAnswerAt = releasedAt = 0
      for (const key of Object.keys(types)) delete types[key]
      return json(res, { reset: true })
    }
    if (url === "/_stats") {
      return json(res, {
        events: seen.size,
        arrivals,
        duplicates,
        answered,
        held: held.length,
        firstAnswerAt,
        lastAnswerAt,
        releasedAt,
        types,
        latency: latency.summary()
      })
    }
    res.writeHead(404)
    res.end()
  })
})
server.keepAliveTimeout = 65_000
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  process.stdout.write(`receiver listening on http://127.0.0.1:${port}\n`)
})
process.on("SIGTERM", () => process.exit(0))
